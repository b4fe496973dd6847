"""The consensus detector: vote share, semantic agreement of rationales, mean confidence.

It judges the votes cast. A fallback (a member whose call failed, or whose reply held no readable vote) has
cast none: the caller leaves it out, and consensus needs at least ``quorum`` votes cast. Below the quorum
the semantic component, and so the score, is undefined (NaN), never 1.0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from dialectica.metrics.agreement import pairwise_cosine

NAN = float("nan")


def vote_share(votes: Mapping[str, str], weights: Mapping[str, float] | None = None) -> tuple[str, float, dict[str, int]]:
    """(majority position, its share, distribution); with ``weights`` the share is weighted.

    Ties go to the alphabetically first position so the result never depends on dict order. An
    abstention is a position like the others. No votes: ("none", NaN, {}).
    """
    distribution = dict(sorted(Counter(votes.values()).items()))
    if not votes:
        return "none", NAN, distribution
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
    quorum: int = 2,
) -> dict[str, Any]:
    """Scores agreement as w_vote * share + w_sem * semantic + w_conf * confidence over the votes cast.

    ``semantic`` is the mean pairwise cosine of the rationales' embeddings (each rationale whole), NaN with
    fewer than ``max(2, quorum)`` votes; a component whose weight is 0 is left out of the score. Consensus
    needs ``quorum`` votes and a score of at least ``threshold``. ``majority`` uses the plain vote share;
    ``weighted`` weights each vote by its member's weight; ``consensus`` also requires that no member voted
    against the majority (abstentions allowed).
    """
    majority, share, distribution = vote_share(votes, member_weights if mechanism == "weighted" else None)
    members = sorted(votes)
    enough = len(members) >= max(2, quorum)
    semantic = pairwise_cosine(embed([rationales[m] for m in members]), quorum) if enough else NAN
    confidence = float(np.mean([confidences[m] for m in members])) if members else NAN
    score = sum(w * c for w, c in zip(weights, (share, semantic, confidence), strict=True) if w)
    dissenters = sorted(m for m in members if votes[m] != majority)
    reached = len(members) >= quorum and not math.isnan(score) and score >= threshold
    if mechanism == "consensus":
        reached = reached and not [m for m in dissenters if votes[m] != "abstain"]
    return {
        "consensus_reached": bool(reached),
        "consensus_score": float(score),
        "majority_position": majority,
        "vote_share": float(share),
        "vote_distribution": distribution,
        "semantic_agreement": float(semantic),
        "average_confidence": confidence,
        "dissenting_experts": dissenters,
        "voices": len(members),
        "quorum": quorum,
    }
