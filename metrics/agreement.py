"""Agreement between participants: Jaccard on claim sets, cosine of embeddings.

Agreement needs voices: over fewer than two answers (or fewer than a graph's quorum) it is undefined,
NaN, never 1.0, so a round in which one expert answered cannot pass for a consensus.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np


def jaccard(a: set[str], b: set[str]) -> float:
    """|a & b| / |a | b|; two empty sets count as 0 (nothing is agreed)."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def majority(voices: int) -> int:
    """The default quorum of ``voices`` participants: a strict majority, and never fewer than two."""
    return max(2, voices // 2 + 1)


def pairwise_jaccard(claim_sets: Sequence[set[str]], quorum: int = 2) -> float:
    """Mean Jaccard over all pairs; NaN (undefined) with fewer than ``max(2, quorum)`` sets."""
    if len(claim_sets) < max(2, quorum):
        return float("nan")
    return float(np.mean([jaccard(a, b) for a, b in combinations(claim_sets, 2)]))


def pairwise_cosine(vectors: np.ndarray, quorum: int = 2) -> float:
    """Mean cosine similarity over all pairs of rows; fewer than ``max(2, quorum)`` rows give NaN."""
    if len(vectors) < max(2, quorum):
        return float("nan")
    unit = vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
    sims = unit @ unit.T
    upper = np.triu_indices(len(vectors), k=1)
    return float(sims[upper].mean())
