"""Python equivalents of the seeds' tools, for notebooks and other programs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dialectica.graphs.interview import SPEC as INTERVIEW
from dialectica.graphs.interview.build import build_interview, initial_state, recursion_limit
from dialectica.graphs.interview.params import InterviewParams
from dialectica.sim.cast import CastRequest, build_deps
from dialectica.sim.config import PROJECT_ROOT


def conduct_interview(
    ds_id: str,
    budget: float = 10.0,
    ascr: dict[str, Any] | None = None,
    *,
    persona: str = "craft_brewery",
    participants: str = "scripted",
    seed: int = 0,
    datasets: Path = PROJECT_ROOT / "datasets",
    question_cost: float = 1.0,
) -> dict[str, Any]:
    """Conducts one discovery interview for schema ``ds_id`` and returns what the seed's tool returns.

    Starting from ``ascr`` (default {}), the graph asks, interprets and merges until the schema's
    completion rule holds or the budget runs out.

    Returns:
        {"ascr", "complete", "messages", "budget_left", "summary"}; ``complete`` is True only when the
        completion criteria were met (not when the budget ran out).
    """
    scenario = INTERVIEW.prepare_scenario({"name": f"{persona}_{ds_id}", "persona": persona, "schema": ds_id},
                                          datasets / "interview")
    params = InterviewParams(budget=budget, question_cost=question_cost)
    deps = build_deps(participants, "interview", CastRequest(scenario, seed, datasets=datasets))
    final = build_interview(deps, params).invoke(initial_state(scenario, params, ascr),
                                                 {"recursion_limit": recursion_limit(params)})
    complete = final.get("end_reason") == "criteria"
    messages = final.get("messages", [])
    why = "DS completion criteria met" if complete else "budget exhausted before the DS was complete"
    return {
        "ascr": final.get("ascr", {}),
        "complete": complete,
        "messages": messages,
        "budget_left": final.get("budget_left", budget),
        "summary": f"Interview for {ds_id} with {len(messages)} messages exchanged. {why}.",
    }
