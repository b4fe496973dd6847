"""``build_socratic_panel()``: the seed's 7-node state machine."""

from __future__ import annotations

import itertools
import json
from typing import Any

from langgraph.graph import END, START, StateGraph

from dialectica.graph import ConfigError, Episode, EpisodeOutcome, TerminationReason, step
from dialectica.graphs.socratic_panel.nodes import PanelNodes
from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.graphs.socratic_panel.state import PanelState

NODES = (
    "formulate_question",
    "collect_responses",
    "analyze_responses",
    "test_assumptions",
    "check_convergence",
    "extract_insights",
    "generate_report",
)


def build_socratic_panel() -> Any:
    """Compiles the panel: a linear round, a conditional loop, then insights and report."""
    workflow = StateGraph(PanelState, context_schema=Episode)
    for name in NODES:
        workflow.add_node(name, step(PanelNodes, name))
    workflow.add_edge(START, "formulate_question")
    for a, b in itertools.pairwise(NODES[:5]):
        workflow.add_edge(a, b)
    workflow.add_conditional_edges(
        "check_convergence",
        step(PanelNodes, "should_continue"),
        {"continue": "formulate_question", "converged": "extract_insights", "max_rounds": "extract_insights"},
    )
    workflow.add_edge("extract_insights", "generate_report")
    workflow.add_edge("generate_report", END)
    return workflow.compile()


def turns(state: dict[str, Any]) -> int:
    """The turns a state has completed (rounds): ``dialectica replay`` forks an episode after one."""
    return len(state.get("round_log", []))


def recursion_limit(params: PanelParams) -> int:
    """Five supersteps a round plus the closing two, with slack."""
    return 5 * params.max_rounds + 10


def initial_state(scenario: dict[str, Any], params: PanelParams) -> dict[str, Any]:
    return {
        "query": scenario["query"],
        "status": "running",
        "expert_ids": [e["id"] for e in scenario["experts"]],
        "expert_names": {e["id"]: e["name"] for e in scenario["experts"]},
        "moderator_id": "moderator",
        "current_round": 0,
    }


def outcome(state: dict[str, Any], params: PanelParams, scenario: dict[str, Any] | None = None) -> EpisodeOutcome:
    """Reads the final state: termination, episode metrics, per-round series, transcript."""
    counts = {k: len(state.get(f"assumptions_{k}", [])) for k in ("validated", "invalidated", "unproven")}
    responses = state.get("response_history", [])
    transcript = []
    for question in state.get("question_history", []):
        transcript.append(
            {
                "round": question["round"],
                "role": "moderator",
                "speaker": "moderator",
                "type": question["type"],
                "text": question["text"],
            }
        )
        transcript += [
            {
                "round": r["round"],
                "role": "participant",
                "speaker": r["expert_id"],
                "text": r["response_text"],
                "claims": r["claims"],
                "fallback": r["fallback"],
            }
            for r in responses
            if r["round"] == question["round"]
        ]
    converged = bool(state.get("convergence_achieved"))
    return EpisodeOutcome(
        termination=TerminationReason.CONVERGED if converged else TerminationReason.MAX_ROUNDS,
        metrics={
            "rounds": state.get("current_round", 0),
            "depth": state.get("depth_layers", 0),
            "jaccard_agreement": state.get("agreement_level", float("nan")),
            "evidence_completeness": state.get("evidence_completeness", 0.0),
            "assumptions": len(state.get("assumptions_identified", [])),
            **{f"assumptions_{k}": v for k, v in counts.items()},
            "unresolved_contradictions": sum(
                1 for a in state.get("assumptions_identified", []) if a["contradictions"] and not a["contradiction_resolved"]
            ),
            "insights": len(state.get("core_insights", [])),
            "blind_spots": len(state.get("blind_spots", [])),
            "expert_fallbacks": sum(1 for r in responses if r["fallback"]),
            "expert_retries": state.get("retry_count", 0),
        },
        per_round=[
            {k: v for k, v in entry.items() if k != "unmet"} | {"unmet": ",".join(entry["unmet"])}
            for entry in state.get("round_log", [])
        ],
        transcript=transcript,
        artifacts={
            "report.md": state.get("final_report", ""),
            "assumptions.json": json.dumps(state.get("assumptions_identified", []), sort_keys=True),
            "evidence.json": json.dumps(
                {k: sorted(e["id"] for e in v) for k, v in state.get("evidence_map", {}).items()}, sort_keys=True
            ),
        },
    )


_REQUIRED = {"name": str, "query": str, "claims": list, "assumptions": list, "evidence": list, "experts": list}
_EXPERT_KEYS = (
    "id",
    "name",
    "role",
    "stubbornness",
    "persuadability",
    "openness",
    "verbosity",
    "claims",
    "assumptions",
    "evidence",
)


def prepare_scenario(scenario: dict[str, Any], root: Any = None) -> dict[str, Any]:
    """Checks keys, types and cross-references; raises ConfigError naming the first problem."""
    for key, kind in _REQUIRED.items():
        if not isinstance(scenario.get(key), kind):
            raise ConfigError(f"missing or malformed key {key!r} (expected {kind.__name__})")
    ids = {section: {item.get("id") for item in scenario[section]} for section in ("claims", "assumptions", "evidence")}
    if not 2 <= len(scenario["experts"]) <= 12:
        raise ConfigError(f"'experts' must list 2 to 12 experts, got {len(scenario['experts'])}")
    for expert in scenario["experts"]:
        missing = [k for k in _EXPERT_KEYS if k not in expert]
        if missing:
            raise ConfigError(f"expert {expert.get('id', '?')!r} lacks key {missing[0]!r}")
        for section, field in (
            ("claims", "claims"),
            ("assumptions", "assumptions"),
            ("evidence", "evidence"),
            ("assumptions", "rejects"),
        ):
            unknown = set(expert.get(field, [])) - ids[section]
            if unknown:
                raise ConfigError(f"expert {expert['id']!r} {field} names unknown id {sorted(unknown)[0]!r}")
    return scenario
