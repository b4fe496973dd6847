"""The committee's nodes, from initialisation to the documented dissent."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from dialectica.graph import Library, ask, attempt, retry
from dialectica.graphs.committee import argument_graph
from dialectica.graphs.committee.consensus import detect_consensus
from dialectica.graphs.committee.params import CommitteeParams
from dialectica.graphs.committee.prompts import chair_prompt, member_prompt
from dialectica.graphs.committee.reading import STATEMENT_SCHEMA, VOTE_SCHEMA, Statement, read_statement, read_vote
from dialectica.graphs.committee.state import CommitteeState


@dataclass
class CommitteeDeps:
    """A chat model per candidate member (roster order is speaking order), the chair, the evidence library."""

    members: dict[str, BaseChatModel]
    roster: list[dict[str, Any]]
    chair: BaseChatModel
    library: Library
    embed: Callable[[list[str]], np.ndarray]


def divergence(positions: dict[str, str]) -> float:
    """1 - the share of the most common position (0: unanimous)."""
    if not positions:
        return 0.0
    return 1.0 - max(Counter(positions.values()).values()) / len(positions)


def _statement(
    member: str, round_num: int, phase: str, text: str, position: str | None = None, read: Statement | None = None
) -> dict[str, Any]:
    """A member's statement as read from its reply; without ``read``, the fallback of a member whose call failed
    (no position: neither heard by the others nor an argument)."""
    return {
        "round": round_num,
        "phase": phase,
        "member": member,
        "text": text,
        "position": position,
        "confidence": None if read is None else read.confidence,
        "cited": [] if read is None else list(read.cited),
        "target": None if read is None else read.target,
        "fallback": read is None,
    }


def _change(
    member: str, round_num: int, phase: str, before: str | None, position: str, read: Statement
) -> dict[str, Any] | None:
    """A member's change of position with its reason (the one it gave, else the evidence it cited), or None."""
    if not before or before == position:
        return None
    why = read.change_reason or (f"evidence {', '.join(read.cited)}" if read.cited else "unstated")
    return {"member": member, "round": round_num, "phase": phase, "from": before, "to": position, "why": why}


class CommitteeNodes:
    def __init__(self, deps: CommitteeDeps, params: CommitteeParams) -> None:
        self.deps = deps
        self.p = params

    def _current(self, state: CommitteeState) -> dict[str, str]:
        return {m: history[-1]["position"] for m, history in state.get("expert_positions", {}).items() if history}

    def _ask(self, member: dict[str, Any], messages: list[BaseMessage], schema: dict[str, Any]) -> tuple[str, bool]:
        """(reply, failed): a member's call gets one retry; a member whose calls both raise says nothing this turn
        (a bracketed note stands in)."""
        reply, _, error = attempt(lambda: ask(self.deps.members[member["id"]], messages, schema))
        if reply is None:
            return f"[{member['name']} did not answer: {str(error).split(':')[0]}]", True
        return reply, False

    def _speak(self, state: CommitteeState, phase: str, round_num: int | None = None) -> dict[str, Any]:
        """Every member speaks in roster order, hearing this round's and the last round's statements.

        A member whose call failed holds its position but makes no statement: its turn is a fallback with
        no position, so it is neither heard by the others nor an argument."""
        round_num = round_num or state["round_number"]
        prior = [s for s in state.get("statements", []) if s["round"] >= round_num - 1 and not s.get("fallback")]
        current = self._current(state)
        said: list[dict[str, Any]] = []
        positions: dict[str, list[dict[str, Any]]] = {}
        changes: list[dict[str, Any]] = []
        for member in state["members"]:
            heard = prior + [s for s in said if not s["fallback"]]
            prompt = member_prompt(
                member,
                question=state["question"],
                phase=phase,
                round_num=round_num,
                evidence=state.get("evidence_pool", []),
                heard=heard,
            )
            reply, failed = self._ask(member, prompt, STATEMENT_SCHEMA)
            if failed:
                said.append(_statement(member["id"], round_num, phase, reply))
                continue
            read = read_statement(reply)
            position = read.position or current.get(member["id"])
            said.append(_statement(member["id"], round_num, phase, read.text or reply, position, read))
            if position:
                positions[member["id"]] = [{"round": round_num, "phase": phase, "position": position}]
                change = _change(member["id"], round_num, phase, current.get(member["id"]), position, read)
                if change is not None:
                    changes.append(change)
        return {"statements": said, "expert_positions": positions, "position_changes": changes}

    def initialize_committee(self, state: CommitteeState) -> dict[str, Any]:
        members = [
            {k: m[k] for k in ("id", "name", "expertise", "weight")} for m in self.deps.roster[: self.p.committee_size]
        ]
        if len(members) < self.p.committee_size:
            raise ValueError(f"the scenario offers {len(members)} members; graph.committee_size={self.p.committee_size}")
        return {"members": members, "chair_id": "chair", "voting_mechanism": self.p.voting_mechanism, "round_number": 1}

    def retrieve_evidence_pool(self, state: CommitteeState) -> dict[str, Any]:
        hits, _ = self.deps.library.search(state["question"], floor=-1.0, k=self.p.evidence_top_k)
        return {"evidence_pool": [{"id": h["id"], "text": h["text"], "similarity": h["similarity"]} for h in hits]}

    def opening_statements(self, state: CommitteeState) -> dict[str, Any]:
        return self._speak(state, "opening")

    def analyze_initial_positions(self, state: CommitteeState) -> dict[str, Any]:
        return {"divergence_level": divergence(self._current(state))}

    def evidence_presentation(self, state: CommitteeState) -> dict[str, Any]:
        """Starts a deliberation cycle: round 1 continues after the openings, a loop-back opens the next round."""
        round_num = state["round_number"]
        if any(entry["round"] == round_num for entry in state.get("round_log", [])):
            round_num += 1
        return self._speak(state, "evidence", round_num) | {"round_number": round_num}

    def build_evidence_graph(self, state: CommitteeState) -> dict[str, Any]:
        graph = argument_graph.build(state.get("statements", []))
        return {"argument_graph": argument_graph.to_json(graph)}

    def check_divergence(self, state: CommitteeState) -> dict[str, Any]:
        return {"divergence_level": divergence(self._current(state))}

    def route_divergence(self, state: CommitteeState) -> str:
        return "rebuttals" if state["divergence_level"] > self.p.divergence_threshold else "synthesis"

    def rebuttals_round(self, state: CommitteeState) -> dict[str, Any]:
        update = self._speak(state, "rebuttal")
        graph = argument_graph.build(state.get("statements", []) + update["statements"])
        return update | {"argument_graph": argument_graph.to_json(graph)}

    def synthesis_round(self, state: CommitteeState) -> dict[str, Any]:
        update = self._speak(state, "synthesis")  # the graph then holds every argument of the round
        graph = argument_graph.build(state.get("statements", []) + update["statements"])
        return update | {"argument_graph": argument_graph.to_json(graph)}

    def voting_round(self, state: CommitteeState) -> dict[str, Any]:
        round_num = state["round_number"]
        heard = [s for s in state.get("statements", []) if s["round"] == round_num and not s.get("fallback")]
        votes, said = {}, []
        for member in state["members"]:
            reply, failed = self._ask(
                member,
                member_prompt(
                    member,
                    question=state["question"],
                    phase="vote",
                    round_num=round_num,
                    evidence=state.get("evidence_pool", []),
                    heard=heard,
                ),
                VOTE_SCHEMA,
            )
            ballot = read_vote(reply)
            fallback = failed or ballot.fallback
            rationale = reply if failed else ballot.rationale
            votes[member["id"]] = {
                "vote": ballot.vote,
                "confidence": ballot.confidence,
                "rationale": rationale,
                "weight": member["weight"],
                "fallback": fallback,
            }
            said.append(
                {
                    "round": round_num,
                    "phase": "vote",
                    "member": member["id"],
                    "text": rationale,
                    "position": ballot.vote,
                    "confidence": ballot.confidence,
                    "cited": [] if failed else list(read_statement(rationale).cited),
                    "target": None,
                    "weight": member["weight"],
                    "fallback": fallback,
                }
            )
        return {"votes": votes, "statements": said}

    def check_consensus(self, state: CommitteeState) -> dict[str, Any]:
        cast = {m: v for m, v in state["votes"].items() if not v["fallback"]}  # a fallback is no vote
        weights = (self.p.vote_weight, self.p.semantic_weight, self.p.confidence_weight)
        result = detect_consensus(
            {m: v["vote"] for m, v in cast.items()},
            {m: v["rationale"] for m, v in cast.items()},
            {m: v["confidence"] for m, v in cast.items()},
            embed=self.deps.embed,
            threshold=self.p.consensus_threshold,
            weights=weights,
            mechanism=self.p.voting_mechanism,
            member_weights={m["id"]: m["weight"] for m in state["members"]},
            quorum=self.p.seated_quorum,
        )
        round_num = state["round_number"]
        statements = [s for s in state.get("statements", []) if s["round"] == round_num]
        # Everything the detector weighed, so a reader can recompute the score and the decision from the record.
        entry = {
            "round": round_num,
            "divergence": state["divergence_level"],
            "rebuttals": any(s["phase"] == "rebuttal" for s in statements),
            "voices": result["voices"],
            "quorum": result["quorum"],
            "vote_share": result["vote_share"],
            "semantic_agreement": result["semantic_agreement"],
            "confidence": result["average_confidence"],
            "consensus_score": result["consensus_score"],
            "consensus_reached": result["consensus_reached"],
            "majority": result["majority_position"],
            "dissenters": len(result["dissenting_experts"]),
            "dissenting": result["dissenting_experts"],
            "detector": {
                "weights": list(weights),
                "threshold": self.p.consensus_threshold,
                "mechanism": self.p.voting_mechanism,
            },
        }
        return {"consensus": result, "consensus_reached": result["consensus_reached"], "round_log": [entry]}

    def route_consensus(self, state: CommitteeState) -> str:
        """consensus / max_rounds / continue (back to evidence presentation)."""
        if state["consensus_reached"]:
            return "consensus"
        return "max_rounds" if state["round_number"] >= self.p.max_rounds else "continue"

    def generate_recommendation(self, state: CommitteeState) -> dict[str, Any]:
        dissent = self._dissent(state)
        cited = Counter(c for s in state.get("statements", []) for c in s["cited"]).most_common(5)
        messages = chair_prompt(
            question=state["question"],
            rounds=state["round_number"],
            consensus=state["consensus"],
            members=len(state["members"]),
            dissent=dissent,
            cited=[c for c, _ in cited],
        )
        # The chair gets one retry; a chair who still does not answer ends the episode (an error record).
        text = retry(lambda: str(self.deps.chair.invoke(messages).content))
        return {"committee_recommendation": text}

    def _dissent(self, state: CommitteeState) -> list[dict[str, Any]]:
        votes = state.get("votes", {})
        return [
            {"member": m, "vote": votes[m]["vote"], "confidence": votes[m]["confidence"], "rationale": votes[m]["rationale"]}
            for m in state["consensus"]["dissenting_experts"]
        ]

    def document_dissent(self, state: CommitteeState) -> dict[str, Any]:
        return {"dissenting_opinions": self._dissent(state)}
