"""``build_interview()``: formulate -> check budget -> answer -> interpret -> evaluate, looping."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from langgraph.graph import END, START, StateGraph

from dialectica.graph import ConfigError, Episode, EpisodeOutcome, TerminationReason, read_yaml, step
from dialectica.graphs.interview.ascr import merge_ascr, precision_recall
from dialectica.graphs.interview.nodes import InterviewNodes
from dialectica.graphs.interview.params import InterviewParams
from dialectica.graphs.interview.schema import KINDS, DiscoverySchema
from dialectica.graphs.interview.state import InterviewState

NODES = ("formulate_question", "check_budget", "get_answer", "interpret_response", "evaluate_completion")


def build_interview() -> Any:
    g = StateGraph(InterviewState, context_schema=Episode)
    for name in NODES:
        g.add_node(name, step(InterviewNodes, name))
    g.add_edge(START, NODES[0])
    for a, b in itertools.pairwise(NODES):
        g.add_edge(a, b)
    g.add_conditional_edges("evaluate_completion", step(InterviewNodes, "route"), {"ask": "formulate_question", "done": END})
    return g.compile()


def turns(state: dict[str, Any]) -> int:
    """The turns a state has completed (questions answered): ``dialectica replay`` forks an episode after one."""
    return len(state.get("turn_log", []))


def recursion_limit(params: InterviewParams) -> int:
    """Five supersteps per question the budget allows, with slack."""
    return 5 * int(params.budget / params.question_cost + 1) + 10


def initial_state(scenario: dict[str, Any], params: InterviewParams, ascr: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "ds_id": scenario["schema"]["id"],
        "project_id": scenario["persona"]["id"],
        "conversation_id": scenario["name"],
        "budget_used": 0.0,  # the budget itself is a param: a replay under another budget goes on from here
        "complete": False,
        "ascr": dict(ascr or {}),
    }


def outcome(state: dict[str, Any], params: InterviewParams, scenario: dict[str, Any]) -> EpisodeOutcome:
    schema = DiscoverySchema.from_dict(scenario["schema"])
    ascr = state.get("ascr", {})
    truth = scenario["persona"]["truth"][schema.id]
    precision, recall = precision_recall(ascr, truth, schema.kinds)
    turns = state.get("turn_log", [])
    per_round: list[dict[str, Any]] = []
    running: dict[str, Any] = {}
    for t in turns:
        running = merge_ascr(running, t["scr"])
        p, r = precision_recall(running, truth, schema.kinds)
        per_round.append(
            {
                "round": t["round"],
                "field": t["field"],
                "wasted": t["wasted"],
                "required_filled": schema.filled_required(running),
                "precision": p,
                "recall": r,
            }
        )
    transcript = [
        {
            "round": i // 2 + 1,
            "role": "system" if m["from"] == "interviewer" else "participant",
            "speaker": m["from"],
            "text": m["content"] if isinstance(m["content"], str) else repr(m["content"]),
            "fallback": bool(m.get("fallback")),
        }
        for i, m in enumerate(state.get("messages", []))
    ]
    by_criteria = state.get("end_reason") == "criteria"
    return EpisodeOutcome(
        termination=TerminationReason.CONVERGED if by_criteria else TerminationReason.BUDGET,
        metrics={
            "rounds": len(turns),
            "budget_used": state.get("budget_used", 0.0),
            "depth": schema.filled_required(ascr),
            "required_fields": sum(f.required for f in schema.fields),
            "ascr_precision": precision,
            "ascr_recall": recall,
            "wasted_turns": sum(t["wasted"] for t in turns),
        },
        per_round=per_round,
        transcript=transcript,
        artifacts={
            "ascr.json": json.dumps(ascr, sort_keys=True),
            "schema.json": json.dumps(
                [{"name": f.name, "kind": f.kind, "required": f.required, "min_items": f.min_items} for f in schema.fields]
            ),
            "truth.json": json.dumps(scenario["persona"]["truth"].get(schema.id, {}), sort_keys=True),
            "ascr_turns.json": json.dumps([{k: t[k] for k in ("round", "field", "scr")} for t in turns], sort_keys=True),
        },
        labels={"schema": schema.id, "persona": scenario["persona"]["id"]},
    )


def _load(root: Path, folder: str, name: str) -> dict[str, Any]:
    path = root / folder / f"{name}.yaml"
    if not path.exists():
        valid = sorted(p.stem for p in (root / folder).glob("*.yaml"))
        raise ConfigError(f"{folder[:-1]} {name!r} not found; valid choices: {', '.join(valid)}")
    data: dict[str, Any] = read_yaml(path)
    return data


def prepare_scenario(scenario: dict[str, Any], root: Path) -> dict[str, Any]:
    """Resolves the scenario's persona and schema (datasets/interview/{personas,schemas}/)."""
    for key in ("name", "persona", "schema"):
        if not isinstance(scenario.get(key), str):
            raise ConfigError(f"missing or malformed key {key!r} (expected str)")
    schema = _load(root, "schemas", scenario["schema"])
    persona = _load(root, "personas", scenario["persona"])
    for f in schema.get("fields", []):
        if f.get("kind") not in KINDS:
            raise ConfigError(
                f"schema {scenario['schema']!r} field {f.get('name')!r} has kind {f.get('kind')!r}; "
                f"valid choices: {', '.join(KINDS)}"
            )
    if schema["id"] not in persona.get("truth", {}):
        raise ConfigError(f"persona {persona['id']!r} has no truth for schema {schema['id']!r}")
    return {**scenario, "schema": schema, "persona": persona}
