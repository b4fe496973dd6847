"""``build_committee()``: the seed's deliberation workflow."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import networkx as nx
from langgraph.graph import END, START, StateGraph

from dialectica.graph import ConfigError, Episode, EpisodeOutcome, TerminationReason, step
from dialectica.graphs.committee import argument_graph
from dialectica.graphs.committee.nodes import CommitteeNodes
from dialectica.graphs.committee.params import CommitteeParams
from dialectica.graphs.committee.state import CommitteeState
from dialectica.metrics.agreement import pairwise_jaccard
from dialectica.metrics.text import claim_set

LINEAR = (
    "initialize_committee",
    "retrieve_evidence_pool",
    "opening_statements",
    "analyze_initial_positions",
    "evidence_presentation",
    "build_evidence_graph",
    "check_divergence",
)


def build_committee() -> Any:
    g = StateGraph(CommitteeState, context_schema=Episode)
    for name in (
        *LINEAR,
        "rebuttals_round",
        "synthesis_round",
        "voting_round",
        "check_consensus",
        "generate_recommendation",
        "document_dissent",
    ):
        g.add_node(name, step(CommitteeNodes, name))
    g.add_edge(START, LINEAR[0])
    for a, b in itertools.pairwise(LINEAR):
        g.add_edge(a, b)
    g.add_conditional_edges(
        "check_divergence",
        step(CommitteeNodes, "route_divergence"),
        {"rebuttals": "rebuttals_round", "synthesis": "synthesis_round"},
    )
    g.add_edge("rebuttals_round", "synthesis_round")
    g.add_edge("synthesis_round", "voting_round")
    g.add_edge("voting_round", "check_consensus")
    g.add_conditional_edges(
        "check_consensus",
        step(CommitteeNodes, "route_consensus"),
        {
            "continue": "evidence_presentation",
            "consensus": "generate_recommendation",
            "max_rounds": "generate_recommendation",
        },
    )
    g.add_edge("generate_recommendation", "document_dissent")
    g.add_edge("document_dissent", END)
    return g.compile()


def turns(state: dict[str, Any]) -> int:
    """The turns a state has completed (rounds): ``dialectica replay`` forks an episode after one."""
    return len(state.get("round_log", []))


def recursion_limit(params: CommitteeParams) -> int:
    return 4 + 7 * params.max_rounds + 10


def initial_state(scenario: dict[str, Any], params: CommitteeParams) -> dict[str, Any]:
    return {"question": scenario["question"], "round_number": 0}


def _citation_jaccard(statements: list[dict[str, Any]], quorum: int) -> float:
    """Mean pairwise Jaccard of the evidence each member cited in a round (its statements and vote, fallbacks
    left out); NaN with fewer than ``quorum`` members heard."""
    cited: dict[str, set[str]] = {}
    for s in statements:
        if not s.get("fallback"):
            cited.setdefault(s["member"], set()).update(s["cited"])
    return pairwise_jaccard(list(cited.values()), quorum)


def _turn(s: dict[str, Any]) -> dict[str, Any]:
    """A statement as a transcript turn. Votes are the participants' answers (whose agreement is measured):
    vote, confidence, weight, fallback and claims; the other statements carry position, confidence, cited
    evidence, the member a rebuttal answers, and fallback."""
    turn = {
        "round": s["round"],
        "speaker": s["member"],
        "phase": s["phase"],
        "text": s["text"],
        "fallback": bool(s.get("fallback")),
        "confidence": s["confidence"],
        "cited": s["cited"],
    }
    if s["phase"] == "vote":
        claims = sorted(claim_set(s["text"])) if not turn["fallback"] else []
        return turn | {"role": "participant", "vote": s["position"], "weight": s.get("weight", 1.0), "claims": claims}
    return turn | {"role": "member", "position": s["position"], "target": s["target"]}


def _per_round(transcript: list[dict[str, Any]], round_log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The detector's round log with the round's agreement measures: ``jaccard_agreement`` (the claim sets of
    the votes cast) and ``citation_jaccard`` (the evidence the members cited)."""
    out = []
    for entry in round_log:
        turns = [t for t in transcript if t["round"] == entry["round"]]
        voices = [set(t["claims"]) for t in turns if t["role"] == "participant" and not t["fallback"]]
        statements = [{"member": t["speaker"], "cited": t["cited"], "fallback": t["fallback"]} for t in turns]
        out.append(
            entry
            | {
                "jaccard_agreement": pairwise_jaccard(voices, entry["quorum"]),
                "citation_jaccard": _citation_jaccard(statements, entry["quorum"]),
            }
        )
    return out


def outcome(state: dict[str, Any], params: CommitteeParams, scenario: dict[str, Any] | None = None) -> EpisodeOutcome:
    graph = nx.node_link_graph(state.get("argument_graph") or {"nodes": [], "edges": []}, edges="edges")
    consensus = state.get("consensus", {})
    transcript = [_turn(s) for s in state.get("statements", [])]
    per_round = _per_round(transcript, state.get("round_log", []))
    last = per_round[-1] if per_round else {}
    nan = float("nan")
    return EpisodeOutcome(
        termination=TerminationReason.CONVERGED if state.get("consensus_reached") else TerminationReason.MAX_ROUNDS,
        metrics={
            "rounds": state.get("round_number", 0),
            "depth": argument_graph.longest_rebuttal_chain(graph),
            "jaccard_agreement": last.get("jaccard_agreement", nan),
            "citation_jaccard": last.get("citation_jaccard", nan),
            "divergence": last.get("divergence", nan),
            "vote_share": consensus.get("vote_share", nan),
            "consensus_score": consensus.get("consensus_score", nan),
            "position_changes": len(state.get("position_changes", [])),
            "dissenters": len(consensus.get("dissenting_experts", [])),
            "argument_nodes": graph.number_of_nodes(),
            "argument_edges": graph.number_of_edges(),
            "rebuttal_rate": sum(e["rebuttals"] for e in per_round) / len(per_round) if per_round else nan,
            "committee_size": len(state.get("members", [])),
        },
        per_round=per_round,
        transcript=transcript,
        artifacts={
            "recommendation.md": state.get("committee_recommendation", ""),
            "argument_graph.json": json.dumps(state.get("argument_graph", {}), sort_keys=True),
            "position_changes.json": json.dumps(state.get("position_changes", [])),
        },
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
        m.setdefault("conformity", 0.0)  # optional: the scripted member's chance to vote on the evidence others cited
        if not isinstance(m["conformity"], int | float) or not 0.0 <= m["conformity"] <= 1.0:
            raise ConfigError(f"member {m['id']!r}: conformity={m['conformity']!r} is out of range; valid range: [0, 1]")
        if set(m["evidence"]) - ids:
            raise ConfigError(f"member {m['id']!r} cites unknown evidence {sorted(set(m['evidence']) - ids)[0]!r}")
    return scenario
