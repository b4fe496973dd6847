"""pass^k (tau-bench): the chance that k independent tries of the same task all succeed."""

from __future__ import annotations

from collections.abc import Iterable
from math import comb


def pass_hat_k(successes: int, trials: int, k: int) -> float:
    """Unbiased estimate C(c, k) / C(n, k) from c successes in n trials; NaN when k > n."""
    if k > trials or k < 1:
        return float("nan")
    return comb(successes, k) / comb(trials, k)


def mean_pass_hat_k(tasks: Iterable[tuple[int, int]], k: int) -> float:
    """pass^k averaged over tasks given as (successes, trials); tasks with fewer than k trials are skipped."""
    values = [pass_hat_k(c, n, k) for c, n in tasks if n >= k]
    return sum(values) / len(values) if values else float("nan")
