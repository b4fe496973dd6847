"""The seed's ``conduct_interview`` tool as a Python function, for notebooks and other programs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dialectica.graph import CastRequest, Episode, build_deps
from dialectica.graphs.interview import SPEC as INTERVIEW
from dialectica.graphs.interview.build import initial_state
from dialectica.graphs.interview.params import InterviewParams


def conduct_interview(
    ds_id: str,
    budget: float = 10.0,
    ascr: dict[str, Any] | None = None,
    *,
    persona: str = "craft_brewery",
    participants: str = "scripted",
    seed: int = 0,
    datasets: Path = INTERVIEW.datasets,
    question_cost: float = 1.0,
) -> dict[str, Any]:
    """Conducts one discovery interview for schema ``ds_id`` and returns what the seed's tool returns.

    Starting from ``ascr`` (default {}), the graph asks, interprets and merges until the schema's
    completion rule holds or the budget runs out.

    Args:
        datasets: The interview's data folder (``personas/`` and ``schemas/``).

    Returns:
        {"ascr", "complete", "messages", "budget_left", "summary"}; ``complete`` is True only when the
        completion criteria were met (not when the budget ran out).
    """
    scenario = INTERVIEW.prepare_scenario({"name": f"{persona}_{ds_id}", "persona": persona, "schema": ds_id}, datasets)
    params = InterviewParams(budget=budget, question_cost=question_cost)
    deps = build_deps(INTERVIEW, participants, CastRequest(scenario, seed, datasets=datasets))
    final = INTERVIEW.compiled().invoke(
        initial_state(scenario, params, ascr),
        {"recursion_limit": INTERVIEW.recursion_limit(params)},
        context=Episode(deps, params, seed),
    )
    complete = final.get("end_reason") == "criteria"
    messages = final.get("messages", [])
    why = "DS completion criteria met" if complete else "budget exhausted before the DS was complete"
    return {
        "ascr": final.get("ascr", {}),
        "complete": complete,
        "messages": messages,
        "budget_left": budget - final.get("budget_used", 0.0),
        "summary": f"Interview for {ds_id} with {len(messages)} messages exchanged. {why}.",
    }
