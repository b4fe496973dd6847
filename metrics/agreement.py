"""Agreement between experts: Jaccard on claim sets, cosine of embeddings."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np


def jaccard(a: set[str], b: set[str]) -> float:
    """|a & b| / |a | b|; two empty sets count as 0 (nothing is agreed)."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def pairwise_jaccard(claim_sets: Sequence[set[str]]) -> float:
    """Mean Jaccard over all pairs; one or no set gives 1.0 (no one disagrees)."""
    pairs = list(combinations(claim_sets, 2))
    if not pairs:
        return 1.0
    return float(np.mean([jaccard(a, b) for a, b in pairs]))


def pairwise_cosine(vectors: np.ndarray) -> float:
    """Mean cosine similarity over all pairs of rows; fewer than two rows give NaN."""
    if len(vectors) < 2:
        return float("nan")
    unit = vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
    sims = unit @ unit.T
    upper = np.triu_indices(len(vectors), k=1)
    return float(sims[upper].mean())
