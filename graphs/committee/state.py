"""The committee's state: positions per member per round, statements, votes, the argument graph."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from dialectica.graph import merge_lists_by_key


class CommitteeState(TypedDict, total=False):
    question: str
    members: list[dict[str, Any]]  # id, name, expertise, weight
    chair_id: str
    voting_mechanism: str
    evidence_pool: list[dict[str, Any]]
    round_number: int
    # round, phase, member, text, position, confidence, cited, target
    statements: Annotated[list[dict[str, Any]], operator.add]
    expert_positions: Annotated[dict[str, list[dict[str, Any]]], merge_lists_by_key]  # member -> [{round, phase, position}]
    position_changes: Annotated[list[dict[str, Any]], operator.add]  # member, round, phase, from, to, why
    divergence_level: float
    round_log: Annotated[list[dict[str, Any]], operator.add]
    votes: dict[str, dict[str, Any]]  # member -> vote, confidence, rationale (this round's)
    consensus: dict[str, Any]
    consensus_reached: bool
    argument_graph: dict[str, Any]
    committee_recommendation: str
    dissenting_opinions: list[dict[str, Any]]
