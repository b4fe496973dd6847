"""The consensus detector: vote share, semantic agreement of rationales, mean confidence."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

import numpy as np

from dialectica.metrics.agreement import pairwise_cosine


def vote_share(votes: Mapping[str, str], weights: Mapping[str, float] | None = None) -> tuple[str, float, dict[str, int]]:
    """(majority position, its share, distribution); with ``weights`` the share is weighted.

    Ties go to the alphabetically first position so the result never depends on dict order.
    """
    distribution = dict(sorted(Counter(votes.values()).items()))
    if not votes:
        return "abstain", 0.0, distribution
    if weights:
        mass: dict[str, float] = {}
        for member, vote in votes.items():
            mass[vote] = mass.get(vote, 0.0) + weights.get(member, 1.0)
        majority = min(mass, key=lambda v: (-mass[v], v))
        return majority, mass[majority] / sum(mass.values()), distribution
    majority = min(distribution, key=lambda v: (-distribution[v], v))
    return majority, distribution[majority] / len(votes), distribution


def detect_consensus(
    votes: Mapping[str, str],
    rationales: Mapping[str, str],
    confidences: Mapping[str, float],
    *,
    embed: Callable[[list[str]], np.ndarray],
    threshold: float = 0.75,
    weights: tuple[float, float, float] = (0.5, 0.3, 0.2),
    mechanism: str = "majority",
    member_weights: Mapping[str, float] | None = None,
) -> dict:
    """Scores agreement as w_vote * share + w_sem * semantic + w_conf * confidence.

    ``majority`` uses the plain vote share; ``weighted`` weights each vote by its member's weight;
    ``consensus`` also requires that no member voted against the majority (abstentions allowed).
    """
    majority, share, distribution = vote_share(votes, member_weights if mechanism == "weighted" else None)
    texts = [rationales[m] for m in sorted(rationales) if rationales[m].strip()]
    semantic = pairwise_cosine(embed(texts)) if len(texts) > 1 else 1.0
    confidence = float(np.mean(list(confidences.values()))) if confidences else 0.0
    score = weights[0] * share + weights[1] * semantic + weights[2] * confidence
    dissenters = sorted(m for m, v in votes.items() if v != majority)
    reached = score >= threshold
    if mechanism == "consensus":
        reached = reached and not [m for m in dissenters if votes[m] != "abstain"]
    return {
        "consensus_reached": bool(reached), "consensus_score": float(score), "majority_position": majority,
        "vote_share": float(share), "vote_distribution": distribution, "semantic_agreement": float(semantic),
        "average_confidence": confidence, "dissenting_experts": dissenters,
    }
