"""Committee: divergence routing both ways, the consensus arithmetic by hand, weighted voting,
the max-rounds exit, and the argument graph's structure."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from dialectica.graphs.committee import argument_graph
from dialectica.graphs.committee.build import build_committee, outcome, recursion_limit
from dialectica.graphs.committee.consensus import detect_consensus, vote_share
from dialectica.graphs.committee.nodes import CommitteeDeps, CommitteeNodes, divergence
from dialectica.graphs.committee.params import CommitteeParams
from dialectica.graphs.committee.reading import Ballot, read_statement, read_vote
from dialectica.sim.authoring.retrieval import Library
from dialectica.sim.authoring.scripted import ScriptedChatModel
from dialectica.sim.authoring.spec import Episode
from dialectica.sim.authoring.termination import TerminationReason


def unit_embed(texts):
    """One-hot vectors by hash: identical texts agree (cosine 1), different ones do not (0)."""
    rows = np.zeros((len(texts), 4096))
    for i, text in enumerate(texts):
        rows[i, int(hashlib.sha256(text.encode()).hexdigest(), 16) % 4096] = 1.0
    return rows


def test_consensus_arithmetic_by_hand():
    votes = {"a": "support", "b": "support", "c": "support", "d": "oppose"}
    rationales = {"a": "same", "b": "same", "c": "same", "d": "other"}
    conf = {"a": 0.8, "b": 0.6, "c": 0.7, "d": 0.9}
    result = detect_consensus(votes, rationales, conf, embed=unit_embed)
    semantic = 3 / 6  # pairs (a,b), (a,c), (b,c) agree out of six
    expected = 0.5 * 0.75 + 0.3 * semantic + 0.2 * 0.75
    assert result["consensus_score"] == pytest.approx(expected)
    assert result["consensus_reached"] is False  # 0.675 < 0.75
    assert result["majority_position"] == "support" and result["dissenting_experts"] == ["d"]
    assert result["vote_distribution"] == {"oppose": 1, "support": 3}
    lenient = detect_consensus(votes, rationales, conf, embed=unit_embed, threshold=0.6, weights=(0.8, 0.1, 0.1))
    assert lenient["consensus_score"] == pytest.approx(0.8 * 0.75 + 0.1 * semantic + 0.1 * 0.75)
    assert lenient["consensus_reached"] is True


def test_weighted_voting_can_change_the_majority():
    votes = {"a": "support", "b": "support", "c": "oppose"}
    assert vote_share(votes) == ("support", pytest.approx(2 / 3), {"oppose": 1, "support": 2})
    majority, share, _ = vote_share(votes, {"a": 1.0, "b": 1.0, "c": 3.0})
    assert (majority, share) == ("oppose", pytest.approx(0.6))
    result = detect_consensus(
        votes,
        {m: "r" for m in votes},
        {m: 1.0 for m in votes},
        embed=unit_embed,
        mechanism="weighted",
        member_weights={"a": 1.0, "b": 1.0, "c": 3.0},
    )
    assert result["majority_position"] == "oppose" and result["dissenting_experts"] == ["a", "b"]
    assert result["consensus_score"] == pytest.approx(0.5 * 0.6 + 0.3 + 0.2)


def test_consensus_mechanism_rejects_any_dissenting_vote():
    votes = {"a": "support", "b": "support", "c": "support", "d": "oppose"}
    same = {m: "r" for m in votes}
    full = {m: 1.0 for m in votes}
    assert detect_consensus(votes, same, full, embed=unit_embed, threshold=0.5)["consensus_reached"]
    strict = detect_consensus(votes, same, full, embed=unit_embed, threshold=0.5, mechanism="consensus")
    assert not strict["consensus_reached"]
    abstaining = votes | {"d": "abstain"}
    abstained = detect_consensus(abstaining, same, full, embed=unit_embed, threshold=0.5, mechanism="consensus")
    assert abstained["consensus_reached"]


def test_reading_statements_and_votes():
    s = read_statement("In reply to cfo: [d3] and [d1] show otherwise. I still support the proposal. Confidence: 72%.")
    assert (s.position, s.confidence, s.cited, s.target) == ("support", 0.72, ("d3", "d1"), "cfo")
    changed = "I have changed my position because [d9] shows costs rise."
    assert read_statement(f"{changed} My view is nuanced now.").position == "nuanced"
    assert read_statement(changed).change_reason == "[d9] shows costs rise"
    assert read_vote("Vote: oppose. Confidence: 90%. Rationale: costs.") == Ballot("oppose", 0.9, "costs.", False)
    assert read_vote("Vote: abstain. Rationale: torn.") == Ballot("abstain", 0.5, "torn.", False)  # an abstention cast
    assert read_vote("I am not sure.") == Ballot("abstain", 0.5, "I am not sure.", True)  # no vote read: a fallback


def test_divergence():
    assert divergence({}) == 0.0
    assert divergence({"a": "support", "b": "support"}) == 0.0
    assert divergence({"a": "support", "b": "oppose", "c": "nuanced", "d": "support"}) == pytest.approx(0.5)


def _nodes(params=None):
    deps = CommitteeDeps({}, [], ScriptedChatModel(policy=lambda m: ""), Library([], unit_embed), unit_embed)
    return CommitteeNodes(deps, params or CommitteeParams())


@pytest.mark.parametrize(("level", "route"), [(0.31, "rebuttals"), (0.3, "synthesis"), (0.0, "synthesis")])
def test_divergence_routing_both_ways(level, route):
    assert _nodes().route_divergence({"divergence_level": level}) == route
    assert _nodes(CommitteeParams(divergence_threshold=0.1)).route_divergence({"divergence_level": 0.2}) == "rebuttals"


@pytest.mark.parametrize(
    ("reached", "round_num", "route"),
    [(True, 1, "consensus"), (False, 2, "continue"), (False, 3, "max_rounds"), (True, 3, "consensus")],
)
def test_consensus_routing(reached, round_num, route):
    assert _nodes().route_consensus({"consensus_reached": reached, "round_number": round_num}) == route


EVIDENCE = [{"id": "d1", "text": "pilot found output held"}, {"id": "d2", "text": "costs rose in care homes"}]


def _committee(answer, size=5, params=None):
    roster = [{"id": f"m{i}", "name": f"M{i}", "expertise": "x", "weight": 1.0} for i in range(size)]
    members = {m["id"]: ScriptedChatModel(policy=lambda msgs, m=m: answer(m["id"], msgs[-1].content)) for m in roster}
    deps = CommitteeDeps(
        members,
        roster,
        ScriptedChatModel(policy=lambda m: "## Committee Recommendation"),
        Library(EVIDENCE, unit_embed),
        unit_embed,
    )
    params = params or CommitteeParams(committee_size=size)
    return build_committee().invoke(
        {"question": "q?", "round_number": 0}, {"recursion_limit": recursion_limit(params)}, context=Episode(deps, params)
    ), params


def test_split_committee_exits_at_max_rounds_with_rebuttals():
    def answer(member, prompt):
        side = "support" if member in ("m0", "m1", "m2") else "oppose"
        if "Final vote" in prompt:
            return f"Vote: {side}. Confidence: 60%. Rationale: because {member}."
        target = "m3" if side == "support" else "m0"
        return f"In reply to {target}: [d1] matters. I {side} the proposal. Confidence: 60%."

    state, params = _committee(answer)
    result = outcome(state, params)
    assert result.termination is TerminationReason.MAX_ROUNDS and state["round_number"] == params.max_rounds
    assert [e["rebuttals"] for e in state["round_log"]] == [True] * 3 and result.metrics["rebuttal_rate"] == 1.0
    assert state["dissenting_opinions"] and {d["member"] for d in state["dissenting_opinions"]} == {"m3", "m4"}
    assert result.metrics["depth"] >= 2  # rebuttals of rebuttals chain across members


def test_agreeing_committee_reaches_consensus_in_round_one_without_rebuttals():
    def answer(member, prompt):
        if "Final vote" in prompt:
            return "Vote: support. Confidence: 90%. Rationale: the pilot [d1]."
        return "I support the proposal. Confidence: 90%. [d1]"

    state, params = _committee(answer, size=7)
    assert state["consensus_reached"] and state["round_number"] == 1
    assert state["round_log"][0]["rebuttals"] is False and len(state["members"]) == 7
    assert outcome(state, params).termination is TerminationReason.CONVERGED


def test_argument_graph_structure():
    statements = [
        {"round": 1, "phase": "opening", "member": "a", "position": "support", "cited": ["d1"], "target": None},
        {"round": 1, "phase": "opening", "member": "b", "position": "support", "cited": ["d1", "d2"], "target": None},
        {"round": 1, "phase": "opening", "member": "c", "position": "oppose", "cited": ["d3"], "target": None},
        {"round": 1, "phase": "rebuttal", "member": "c", "position": "oppose", "cited": [], "target": "a"},
        {"round": 1, "phase": "rebuttal", "member": "a", "position": "support", "cited": [], "target": "c"},
        {"round": 1, "phase": "rebuttal", "member": "b", "position": "support", "cited": [], "target": "c"},
        {"round": 1, "phase": "vote", "member": "a", "position": "support", "cited": ["d1"], "target": None},
    ]
    graph = argument_graph.build(statements)
    assert graph.number_of_nodes() == 6  # votes are not arguments
    edges = {(u, v, d["relationship"]) for u, v, d in graph.edges(data=True)}
    assert ("b:1:opening", "a:1:opening", "supports") in edges  # same position, shared evidence
    assert ("c:1:rebuttal", "a:1:opening", "opposes") in edges
    assert ("a:1:rebuttal", "c:1:rebuttal", "opposes") in edges  # a rebuttal of a rebuttal
    assert argument_graph.longest_rebuttal_chain(graph) == 2
    data = argument_graph.to_json(graph)
    assert {n["member"] for n in data["nodes"]} == {"a", "b", "c"} and all("round" in n for n in data["nodes"])


def test_below_quorum_semantic_agreement_is_undefined_and_there_is_no_consensus():
    votes = {"a": "support", "b": "support"}
    result = detect_consensus(
        votes, {m: "same" for m in votes}, {m: 1.0 for m in votes}, embed=unit_embed, threshold=0.1, quorum=3
    )
    assert np.isnan(result["semantic_agreement"]) and np.isnan(result["consensus_score"])
    assert result["consensus_reached"] is False and (result["voices"], result["quorum"]) == (2, 3)
    one = detect_consensus({"a": "support"}, {"a": "r"}, {"a": 1.0}, embed=unit_embed, threshold=0.1, quorum=2)
    assert np.isnan(one["semantic_agreement"]) and not one["consensus_reached"]  # one voice is not agreement
    assert vote_share({})[0] == "none" and np.isnan(vote_share({})[1])


def test_quorum_defaults_to_a_majority_of_the_seated_members_and_is_range_checked():
    from dialectica.sim.authoring.params import ConfigError, build_params

    assert CommitteeParams().seated_quorum == 4 and CommitteeParams(committee_size=10).seated_quorum == 6
    assert CommitteeParams(quorum=7).seated_quorum == 7
    with pytest.raises(ConfigError, match=r"graph.quorum=8 is out of range"):
        build_params(CommitteeParams, {"quorum": 8}, "graph")
    with pytest.raises(ConfigError, match=r"graph.quorum=1 is out of range"):
        build_params(CommitteeParams, {"quorum": 1}, "graph")


def _unanimous_but_silent(silent):
    """Every member supports; the members in ``silent`` fail their vote (a raised call, or an unreadable reply)."""

    def answer(member, prompt):
        if "Final vote" in prompt:
            if member in silent:
                if silent[member] == "raise":
                    raise TimeoutError("simulated")
                return "Hmm."
            return "Vote: support. Confidence: 90%. Rationale: the pilot [d1] held output steady for a year."
        return "I support the proposal. Confidence: 90%. [d1]"

    return answer


def test_fallback_votes_are_no_voices_and_consensus_needs_a_quorum_of_votes_cast():
    silent = {"m0": "raise", "m1": "garbled", "m2": "raise", "m3": "garbled"}
    state, params = _committee(_unanimous_but_silent(silent), size=7)
    result = outcome(state, params)
    assert result.termination is TerminationReason.MAX_ROUNDS  # 3 votes cast of 7; the quorum is 4
    last = result.per_round[-1]
    assert (last["voices"], last["quorum"], last["consensus_reached"]) == (3, 4, False)
    assert np.isnan(last["semantic_agreement"]) and np.isnan(last["jaccard_agreement"])
    assert last["vote_share"] == 1.0 and last["dissenters"] == 0  # silent members are not dissenters
    votes = [t for t in result.transcript if t["round"] == 3 and t["role"] == "participant"]
    assert [t["fallback"] for t in votes] == [True] * 4 + [False] * 3
    assert all(t["claims"] == [] for t in votes[:4]) and all(t["claims"] for t in votes[4:])
    assert votes[0]["text"].startswith("[M0 did not answer") and votes[1]["vote"] == "abstain"

    state, params = _committee(_unanimous_but_silent({"m0": "raise", "m1": "garbled", "m2": "raise"}), size=7)
    result = outcome(state, params)
    assert result.termination is TerminationReason.CONVERGED and result.per_round[0]["voices"] == 4
    assert result.metrics["jaccard_agreement"] == 1.0  # the four rationales make the same claim
    quorum5 = CommitteeParams(committee_size=7, quorum=5)
    state, params = _committee(_unanimous_but_silent({"m0": "raise", "m1": "garbled", "m2": "raise"}), 7, quorum5)
    assert outcome(state, params).termination is TerminationReason.MAX_ROUNDS


def test_records_carry_votes_detector_components_and_statement_fields():
    state, params = _committee(_unanimous_but_silent({}), size=5)
    result = outcome(state, params)
    entry = result.per_round[0]
    for key in (
        "voices",
        "quorum",
        "vote_share",
        "semantic_agreement",
        "confidence",
        "consensus_score",
        "majority",
        "dissenting",
        "detector",
        "jaccard_agreement",
        "citation_jaccard",
    ):
        assert key in entry, key
    assert entry["detector"] == {"weights": [0.5, 0.3, 0.2], "threshold": 0.75, "mechanism": "majority"}
    score = 0.5 * entry["vote_share"] + 0.3 * entry["semantic_agreement"] + 0.2 * entry["confidence"]
    assert entry["consensus_score"] == pytest.approx(score) and entry["confidence"] == pytest.approx(0.9)
    vote = next(t for t in result.transcript if t["role"] == "participant")
    assert {k: vote[k] for k in ("vote", "confidence", "weight", "fallback", "cited")} == {
        "vote": "support",
        "confidence": 0.9,
        "weight": 1.0,
        "fallback": False,
        "cited": ["d1"],
    }
    said = next(t for t in result.transcript if t["role"] == "member")
    assert {k: said[k] for k in ("position", "confidence", "cited", "target", "fallback")} == {
        "position": "support",
        "confidence": 0.9,
        "cited": ["d1"],
        "target": None,
        "fallback": False,
    }
    assert entry["citation_jaccard"] == 1.0 and "citation_jaccard" in result.metrics
    # the final synthesis statements are arguments too: opening + evidence + synthesis of five members
    assert result.metrics["argument_nodes"] == 15
