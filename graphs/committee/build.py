"""``build_committee()``: the seed's deliberation workflow."""

from __future__ import annotations

import itertools
import json
from itertools import combinations
from pathlib import Path
from typing import Any

import networkx as nx
from langgraph.graph import END, START, StateGraph

from dialectica.graphs.committee import argument_graph
from dialectica.graphs.committee.nodes import CommitteeNodes
from dialectica.graphs.committee.params import CommitteeParams
from dialectica.graphs.committee.state import CommitteeState
from dialectica.metrics.agreement import jaccard
from dialectica.sim.params import ConfigError
from dialectica.sim.spec import Episode, EpisodeOutcome, step
from dialectica.sim.termination import TerminationReason

LINEAR = ("initialize_committee", "retrieve_evidence_pool", "opening_statements", "analyze_initial_positions",
          "evidence_presentation", "build_evidence_graph", "check_divergence")


def build_committee() -> Any:
    g = StateGraph(CommitteeState, context_schema=Episode)
    for name in (*LINEAR, "rebuttals_round", "synthesis_round", "voting_round", "check_consensus",
                 "generate_recommendation", "document_dissent"):
        g.add_node(name, step(CommitteeNodes, name))
    g.add_edge(START, LINEAR[0])
    for a, b in itertools.pairwise(LINEAR):
        g.add_edge(a, b)
    g.add_conditional_edges("check_divergence", step(CommitteeNodes, "route_divergence"),
                            {"rebuttals": "rebuttals_round", "synthesis": "synthesis_round"})
    g.add_edge("rebuttals_round", "synthesis_round")
    g.add_edge("synthesis_round", "voting_round")
    g.add_edge("voting_round", "check_consensus")
    g.add_conditional_edges("check_consensus", step(CommitteeNodes, "route_consensus"),
                            {"continue": "evidence_presentation", "consensus": "generate_recommendation",
                             "max_rounds": "generate_recommendation"})
    g.add_edge("generate_recommendation", "document_dissent")
    g.add_edge("document_dissent", END)
    return g.compile()


def recursion_limit(params: CommitteeParams) -> int:
    return 4 + 7 * params.max_rounds + 10


def initial_state(scenario: dict[str, Any], params: CommitteeParams) -> dict[str, Any]:
    return {"question": scenario["question"], "round_number": 0}


def _round_agreement(state: dict[str, Any], round_num: int) -> float:
    """Mean pairwise Jaccard of the evidence the members cited in a round."""
    cited: dict[str, set[str]] = {}
    for s in state.get("statements", []):
        if s["round"] == round_num:
            cited.setdefault(s["member"], set()).update(s["cited"])
    pairs = list(combinations(cited.values(), 2))
    return sum(jaccard(a, b) for a, b in pairs) / len(pairs) if pairs else float("nan")


def outcome(state: dict[str, Any], params: CommitteeParams, scenario: dict[str, Any] | None = None) -> EpisodeOutcome:
    graph = nx.node_link_graph(state.get("argument_graph") or {"nodes": [], "edges": []}, edges="edges")
    consensus = state.get("consensus", {})
    per_round = [entry | {"jaccard_agreement": _round_agreement(state, entry["round"])}
                 for entry in state.get("round_log", [])]
    transcript = [{"round": s["round"], "role": "participant" if s["phase"] == "vote" else "member",
                   "speaker": s["member"], "phase": s["phase"], "text": s["text"]} for s in state.get("statements", [])]
    return EpisodeOutcome(
        termination=TerminationReason.CONVERGED if state.get("consensus_reached") else TerminationReason.MAX_ROUNDS,
        metrics={
            "rounds": state.get("round_number", 0),
            "depth": argument_graph.longest_rebuttal_chain(graph),
            "jaccard_agreement": per_round[-1]["jaccard_agreement"] if per_round else float("nan"),
            "divergence": per_round[-1]["divergence"] if per_round else float("nan"),
            "vote_share": consensus.get("vote_share", float("nan")),
            "consensus_score": consensus.get("consensus_score", float("nan")),
            "position_changes": len(state.get("position_changes", [])),
            "dissenters": len(consensus.get("dissenting_experts", [])),
            "argument_nodes": graph.number_of_nodes(),
            "argument_edges": graph.number_of_edges(),
            "rebuttal_rate": (sum(e["rebuttals"] for e in state.get("round_log", [])) / len(state["round_log"])
                              if state.get("round_log") else float("nan")),
            "committee_size": len(state.get("members", [])),
        },
        per_round=per_round,
        transcript=transcript,
        artifacts={"recommendation.md": state.get("committee_recommendation", ""),
                   "argument_graph.json": json.dumps(state.get("argument_graph", {}), sort_keys=True),
                   "position_changes.json": json.dumps(state.get("position_changes", []))},
        labels={"majority": consensus.get("majority_position", "none")},
    )


_MEMBER_KEYS = ("id", "name", "expertise", "stance", "confidence", "persuadability", "stubborn", "weight", "evidence")


def prepare_scenario(scenario: dict[str, Any], root: Path) -> dict[str, Any]:
    for key, kind in (("name", str), ("question", str), ("evidence", list), ("members", list)):
        if not isinstance(scenario.get(key), kind):
            raise ConfigError(f"missing or malformed key {key!r} (expected {kind.__name__})")
    if len(scenario["members"]) < 5:
        raise ConfigError(f"'members' must list at least 5 members, got {len(scenario['members'])}")
    ids = {d["id"] for d in scenario["evidence"]}
    for m in scenario["members"]:
        missing = [k for k in _MEMBER_KEYS if k not in m]
        if missing:
            raise ConfigError(f"member {m.get('id', '?')!r} lacks key {missing[0]!r}")
        if set(m["evidence"]) - ids:
            raise ConfigError(f"member {m['id']!r} cites unknown evidence {sorted(set(m['evidence']) - ids)[0]!r}")
    return scenario
