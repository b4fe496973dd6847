"""Pure decisions of the Socratic panel: question type, validation, depth, convergence."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.graphs.socratic_panel.state import Assumption, EvidenceStrength, QuestionType, ValidationStatus

_QUESTION_BASE_DEPTH: dict[str, int] = {
    "clarification": 1,
    "reason": 2,
    "evidence": 2,
    "perspective": 3,
    "assumption": 3,
    "implication": 4,
}


def select_question_type(
    round_num: int, quality: float, depth: int, evidence_completeness: float, agreement: float, p: PanelParams
) -> QuestionType:
    """The seed's schedule: clarify, then dig for assumptions, evidence, perspectives, implications."""
    if round_num <= 1:
        return "clarification"
    if round_num == 2:
        return "assumption" if quality >= p.clarification_quality else "clarification"
    if depth < p.question_depth:
        return "assumption"
    if evidence_completeness < p.question_evidence:
        return "evidence"
    if not agreement >= p.question_agreement:  # low, or undefined (NaN) below quorum
        return "perspective"
    return "implication"


def question_depth(question_type: str, round_num: int) -> int:
    """How deep a question probes: deeper types and later rounds probe further."""
    return _QUESTION_BASE_DEPTH[question_type] + (round_num - 1) // 2


def evidence_score(item: Mapping[str, Any], p: PanelParams) -> float:
    """One item's score: strength weight, discounted for bias, bonus for a large sample."""
    score = p.strength_weights[item["strength"]] * p.bias_discounts[item["bias_risk"]]
    if (item.get("sample_size") or 0) >= p.sample_size_min:
        score *= p.sample_size_bonus
    return score


def assess_validation(evidence: Sequence[Mapping[str, Any]], p: PanelParams) -> tuple[ValidationStatus, EvidenceStrength]:
    """(validation status, evidence strength) from the mean evidence score."""
    if not evidence:
        return "unproven", "none"
    mean = sum(evidence_score(item, p) for item in evidence) / len(evidence)
    if mean >= p.validated_cutoff:
        return "validated", "high" if mean >= p.high_strength_cutoff else "medium"
    if mean <= p.invalidated_cutoff:
        return "invalidated", "low"
    return "unproven", "medium"


def tree_depth(assumptions: Iterable[Assumption]) -> int:
    """Longest chain of assumptions linked through ``related_assumptions`` (child -> parent)."""
    parents = {a["id"]: a["related_assumptions"] for a in assumptions}
    memo: dict[str, int] = {}

    def depth(node: str, seen: frozenset[str]) -> int:
        if node not in memo:
            above = [p for p in parents.get(node, []) if p in parents and p not in seen]
            memo[node] = 1 + max((depth(p, seen | {node}) for p in above), default=0)
        return memo[node]

    return max((depth(node, frozenset()) for node in parents), default=0)


def depth_layers(assumptions: Sequence[Assumption]) -> int:
    """The seed's depth: the deepest layer recorded or the deepest chain, whichever is larger."""
    if not assumptions:
        return 0
    return max(max(a["depth_layer"] for a in assumptions), tree_depth(assumptions))


def evidence_completeness(assumptions: Sequence[Assumption], evidence_map: Mapping[str, list[Any]]) -> float:
    """Share of identified assumptions backed by at least one evidence item (0 when none)."""
    if not assumptions:
        return 0.0
    return sum(1 for a in assumptions if evidence_map.get(a["id"])) / len(assumptions)


def unresolved_contradictions(assumptions: Iterable[Assumption]) -> list[Assumption]:
    return [a for a in assumptions if a["contradictions"] and not a["contradiction_resolved"]]


def check_convergence(
    *,
    current_round: int,
    depth: int,
    agreement: float,
    completeness: float,
    unresolved: int,
    voices: int,
    quorum: int,
    p: PanelParams,
) -> tuple[bool, str, list[str]]:
    """The five criteria, and a quorum of voices for agreement to mean anything.

    Returns (converged, reason, names of unmet criteria). Agreement is NaN below quorum, so it fails too.
    """
    checks = [
        ("quorum", voices >= quorum, f"Voices: {voices}/{quorum}"),
        ("depth", depth >= p.depth_requirement, f"Depth: {depth}/{p.depth_requirement}"),
        ("agreement", agreement >= p.convergence_threshold, f"Agreement: {agreement:.2f}/{p.convergence_threshold}"),
        (
            "evidence",
            completeness >= p.evidence_completeness,
            f"Evidence: {completeness:.2f}/{p.evidence_completeness}",
        ),
        ("contradictions", unresolved == 0, f"Contradictions: {unresolved} unresolved"),
        ("min_rounds", current_round >= p.min_rounds, f"Rounds: {current_round}/{p.min_rounds} minimum"),
    ]
    unmet = [name for name, ok, _ in checks if not ok]
    if not unmet:
        return True, f"Converged at round {current_round}", []
    return False, "Not converged: " + ", ".join(msg for _, ok, msg in checks if not ok), unmet


def route_after_check(converged: bool, current_round: int, max_rounds: int) -> str:
    """Router after check_convergence: continue / converged / max_rounds."""
    if converged:
        return "converged"
    if current_round >= max_rounds:
        return "max_rounds"
    return "continue"
