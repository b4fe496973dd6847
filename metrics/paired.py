"""Comparing two configurations' success rates, paired when their episodes share seeds.

Configurations of a sweep run the same episode seeds and scenarios (the seed of episode i derives from
the run seed, the graph and i), so their outcomes come in pairs. A paired test uses that: it looks
only at the pairs on which the two disagree, which is far more sensitive than comparing two rates as
if independent.

- Pairs shared: the exact McNemar test (binomial on the discordant pairs), and the difference of
  rates with a 95% paired bootstrap interval (resampling pairs, seeded).
- No pairs shared (other seeds): Fisher's exact test, and Newcombe's hybrid-score interval for the
  difference of two independent proportions.
- Several configurations against the best: Holm's step-down correction of the p-values.

These are fixed-sample statistics: valid for the pairs as they are, not for stopping when they look decided.
Beside them, ``decided_at`` says after how many pairs an anytime-valid test (``metrics.sequential``: a sequential
McNemar test at level ``delta``) decided, so a comparison could have stopped there; None when it is not decided.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dialectica.metrics.sequential import first_decided
from dialectica.metrics.stats import wilson_interval

BOOTSTRAP = 4000


@dataclass(frozen=True)
class Comparison:
    """One configuration against another.

    Attributes:
        test: ``mcnemar`` (paired, exact) or ``fisher`` (unpaired, exact).
        pairs: Episodes matched by seed and scenario (0 for an unpaired test).
        diff: Rate of ``a`` minus rate of ``b`` (over the pairs when paired).
        low, high: Its 95% interval.
        p: The test's two-sided p-value (before any correction).
        decided_at: Paired: the pairs after which the anytime-valid test decided at ``delta`` (None: not decided).
    """

    test: str
    pairs: int
    diff: float
    low: float
    high: float
    p: float
    decided_at: int | None = None


def compare(a: Mapping[Hashable, bool], b: Mapping[Hashable, bool], seed: int = 0, delta: float = 0.05) -> Comparison:
    """Compares the outcomes of ``a`` and ``b``, each keyed by what identifies an episode (seed, scenario):
    paired over the shared keys when there are any (in the keys' order: an episode index first, where the keys
    hold one), unpaired otherwise."""
    shared = _ordered(set(a) & set(b))
    if shared:
        x, y = np.array([a[k] for k in shared], bool), np.array([b[k] for k in shared], bool)
        return dataclasses.replace(_paired(x, y, seed), decided_at=first_decided(x, y, delta))
    return _unpaired(sum(a.values()), len(a), sum(b.values()), len(b))


def _ordered(keys: set[Hashable]) -> list[Hashable]:
    """The keys in their natural order (episode 2 before 10) where they compare, else by their text."""
    try:
        return sorted(keys)  # type: ignore[type-var]
    except TypeError:
        return sorted(keys, key=repr)


def _paired(x: np.ndarray, y: np.ndarray, seed: int) -> Comparison:
    from statsmodels.stats.contingency_tables import mcnemar

    n = len(x)
    b, c = int(np.sum(x & ~y)), int(np.sum(~x & y))
    table = [[int(np.sum(x & y)), b], [c, int(np.sum(~x & ~y))]]
    p = 1.0 if b + c == 0 else float(mcnemar(table, exact=True).pvalue)
    diffs = x.astype(float) - y.astype(float)
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, n, size=(BOOTSTRAP, n))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Comparison("mcnemar", n, float(diffs.mean()), float(low), float(high), min(1.0, p))


def _unpaired(c1: int, n1: int, c2: int, n2: int) -> Comparison:
    from scipy.stats import fisher_exact

    if not n1 or not n2:
        return Comparison("fisher", 0, float("nan"), float("nan"), float("nan"), 1.0)
    p = float(fisher_exact([[c1, n1 - c1], [c2, n2 - c2]]).pvalue)
    p1, p2 = c1 / n1, c2 / n2
    l1, u1 = wilson_interval(c1, n1)
    l2, u2 = wilson_interval(c2, n2)
    diff = p1 - p2
    low = diff - float(np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2))
    high = diff + float(np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))
    return Comparison("fisher", 0, diff, max(-1.0, low), min(1.0, high), min(1.0, p))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error), in the order given."""
    if not pvalues:
        return []
    from statsmodels.stats.multitest import multipletests

    return [float(p) for p in multipletests(list(pvalues), method="holm")[1]]
