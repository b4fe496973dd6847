"""Small statistics helpers: Wilson intervals and percentiles with documented empty values."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # Clamp to [0, 1] and to include p: rounding can put the bound a hair past p at k = 0 or k = n.
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default); NaN for no values."""
    return float(np.percentile(values, q)) if len(values) else float("nan")


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; NaN for no values."""
    return float(np.mean(values)) if len(values) else float("nan")
