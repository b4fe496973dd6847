"""The Socratic panel's state; appending fields carry reducers."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from dialectica.graph import merge_lists_by_key, upsert_by_id

QuestionType = Literal["clarification", "assumption", "reason", "evidence", "perspective", "implication"]
AssumptionKind = Literal["explicit", "implicit", "foundational"]
ValidationStatus = Literal["validated", "invalidated", "unproven"]
EvidenceStrength = Literal["high", "medium", "low", "none"]


class QuestionRecord(TypedDict):
    round: int
    type: QuestionType
    text: str
    moderator_id: str
    target_assumption: str | None
    depth_level: int
    asked: NotRequired[str]  # the message the moderator was sent (its dialogue keeps it)


class ExpertResponse(TypedDict):
    round: int
    expert_id: str
    expert_name: str
    response_text: str
    confidence_score: float
    quality_score: float
    claims: list[str]
    assumptions_revealed: list[str]
    evidence_cited: list[dict[str, Any]]
    attempts: int
    fallback: bool


class Assumption(TypedDict):
    id: str
    text: str
    type: AssumptionKind
    depth_layer: int
    validation_status: ValidationStatus
    evidence_strength: EvidenceStrength
    impact_score: float
    raised_by: list[str]
    related_assumptions: list[str]
    contradictions: list[str]
    resolved_by: list[str]
    contradiction_resolved: bool


class PanelState(TypedDict, total=False):
    """State of one panel. Fields with reducers accumulate; the rest are last-write."""

    query: str
    status: Literal["running", "converged", "max_rounds_reached"]
    expert_ids: list[str]
    expert_names: dict[str, str]
    moderator_id: str
    current_round: Annotated[int, operator.add]
    question_history: Annotated[list[QuestionRecord], operator.add]
    response_history: Annotated[list[ExpertResponse], operator.add]
    assumptions_identified: Annotated[list[Assumption], upsert_by_id]
    assumptions_validated: list[str]
    assumptions_invalidated: list[str]
    assumptions_unproven: list[str]
    evidence_map: Annotated[dict[str, list[dict[str, Any]]], merge_lists_by_key]
    round_quality: float
    depth_layers: int
    agreement_level: float
    voices: int
    evidence_completeness: float
    contradictions_found: int
    contradictions_resolved: bool
    convergence_achieved: bool
    convergence_reason: str
    unmet_criteria: list[str]
    round_log: Annotated[list[dict[str, Any]], operator.add]
    core_insights: list[dict[str, Any]]
    blind_spots: list[dict[str, Any]]
    recommendations: list[dict[str, Any]]
    final_report: str
    errors: Annotated[list[dict[str, Any]], operator.add]
    retry_count: Annotated[int, operator.add]
