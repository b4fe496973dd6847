"""How far a verdict is from people's labels, and the rate a verdict reports corrected for its measured error.

Pure functions over booleans: a *verdict* is a machine's pass or fail for an episode (a graph's convergence
detector, a rule, an LLM judge); a *label* is a person's. ``(verdict, label)`` pairs give a :class:`Confusion`,
Cohen's kappa with its asymptotic 95% interval (statsmodels), and, with the verdict's pass count over every
episode of the run, the corrected rate.

The corrected rate is the share of episodes a person would pass, estimated by double sampling: the verdict
splits the run's ``N`` episodes into passed and failed; labels inside each class estimate the chance a person
agrees (``q1 = P(person passes | verdict passed)``, ``q0 = P(person passes | verdict failed)``), and

    rate = pi * q1 + (1 - pi) * q0,      pi = the verdict's pass rate.

The estimate is valid when the labeled episodes of each class are a random sample of it, whatever the share
of each class labeled (``dialectica label`` samples that way). It is Bayesian with Jeffreys priors,
``pi ~ Beta(P + 1/2, N - P + 1/2)``, ``q1 ~ Beta(tp + 1/2, fp + 1/2)``, ``q0 ~ Beta(fn + 1/2, tn + 1/2)``,
the median and the 2.5 and 97.5 percentiles of seeded Monte Carlo draws of ``rate``: it carries both the
episodes' sampling (``pi``) and the labels' (``q1``, ``q0``), and the estimate lies inside its interval. (The
plug-in value of the formula above does not always: three labels that all agree with a verdict put it at 1.0,
where the interval, which knows how few they are, ends below 1. With many labels the two agree.)

Why not Rogan-Gladen with a bootstrap: Rogan-Gladen divides by ``sensitivity + specificity - 1``, which is
unstable for a poor verdict and undefined for a useless one, and needs labels drawn without regard to the
verdict; a percentile bootstrap of ten labels that all agree has no width at all, where the Jeffreys posterior
keeps an honest one (``tests/unit/test_verdicts.py`` measures its
coverage where the verdict's error rates are known).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass

import numpy as np

DRAWS = 20_000


@dataclass(frozen=True)
class Confusion:
    """A verdict against people's labels: ``tp`` both pass, ``fp`` the verdict passes and the person fails,
    ``fn`` the verdict fails and the person passes, ``tn`` both fail. Rates of an empty class are NaN."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def accuracy(self) -> float:
        return _share(self.tp + self.tn, self.n)

    @property
    def sensitivity(self) -> float:
        """Of the episodes a person passed, the share the verdict passed."""
        return _share(self.tp, self.tp + self.fn)

    @property
    def specificity(self) -> float:
        """Of the episodes a person failed, the share the verdict failed."""
        return _share(self.tn, self.tn + self.fp)

    @property
    def ppv(self) -> float:
        """Of the episodes the verdict passed, the share a person passed (``q1``)."""
        return _share(self.tp, self.tp + self.fp)

    @property
    def npv(self) -> float:
        """Of the episodes the verdict failed, the share a person failed (``1 - q0``)."""
        return _share(self.tn, self.tn + self.fn)

    def counts(self) -> dict[str, int]:
        return asdict(self)


def _share(k: int, n: int) -> float:
    return k / n if n else math.nan


def confusion(pairs: Iterable[tuple[bool, bool]]) -> Confusion:
    """The confusion matrix of ``(verdict, label)`` pairs; empty input gives all zeros."""
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for verdict, label in pairs:
        counts[("t" if verdict == label else "f") + ("p" if verdict else "n")] += 1
    return Confusion(**counts)


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float | None]:
        """``{estimate, ci95_low, ci95_high}``, NaN as None (strict JSON)."""
        values = {"estimate": self.estimate, "ci95_low": self.low, "ci95_high": self.high}
        return {k: None if math.isnan(v) else v for k, v in values.items()}


def kappa(c: Confusion) -> Interval:
    """Cohen's kappa between verdict and labels with its asymptotic 95% interval (statsmodels'
    ``cohens_kappa``), clipped to [-1, 1]. NaN when undefined: no labels, or both sides constant and equal. Where
    the asymptotic variance is zero or below (perfect agreement, a table too small or one-sided), whose interval
    would be a point, the interval is the central 95% of kappa over the table's Jeffreys posterior
    (``_posterior_kappa``), widened to hold the estimate: ten labels in perfect agreement, half of them passes, give
    1.00 (0.43-1.00), four give 1.00 (0.04-1.00)."""
    if c.n == 0:
        return Interval(math.nan, math.nan, math.nan)
    table = np.array([[c.tp, c.fp], [c.fn, c.tn]], dtype=float)  # rows: label, columns: verdict (kappa is symmetric)
    expected = (table.sum(0) * table.sum(1)).sum() / c.n**2
    if expected >= 1.0:  # every episode in one class on both sides: chance agreement is total, kappa undefined
        return Interval(math.nan, math.nan, math.nan)
    from statsmodels.stats.inter_rater import cohens_kappa

    with np.errstate(invalid="ignore"):
        result = cohens_kappa(table)
    value, variance = float(result.kappa), float(result.var_kappa)
    if not variance > 0:  # a perfect, tiny or one-sided table's variance estimate is zero or below
        low, high = _posterior_kappa(table)
        return Interval(value, min(low, value), max(high, value))
    half = 1.959963984540054 * math.sqrt(variance)
    return Interval(value, max(-1.0, value - half), min(1.0, value + half))


def _posterior_kappa(table: np.ndarray, draws: int = DRAWS, seed: int = 0) -> tuple[float, float]:
    """The central 95% of kappa over a Dirichlet(cells + 1/2) posterior of the 2x2 table's cell shares."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(table.ravel() + 0.5, draws)  # tp, fp, fn, tn
    observed = p[:, 0] + p[:, 3]
    chance = (p[:, 0] + p[:, 1]) * (p[:, 0] + p[:, 2]) + (p[:, 2] + p[:, 3]) * (p[:, 1] + p[:, 3])
    low, high = np.quantile((observed - chance) / (1 - chance), [0.025, 0.975])
    return max(-1.0, float(low)), min(1.0, float(high))


def corrected_rate(passed: int, total: int, c: Confusion, draws: int = DRAWS, seed: int = 0) -> Interval:
    """The share of the run's ``total`` episodes a person would pass, given the verdict passed ``passed`` of them
    and the labeled confusion ``c`` (module docstring: double sampling, Jeffreys posterior): the posterior's median
    and central 95%. No episodes: NaN.
    """
    if total <= 0:
        return Interval(math.nan, math.nan, math.nan)
    rng = np.random.default_rng(seed)
    pis = rng.beta(passed + 0.5, total - passed + 0.5, draws)
    rate = pis * rng.beta(c.tp + 0.5, c.fp + 0.5, draws) + (1 - pis) * rng.beta(c.fn + 0.5, c.tn + 0.5, draws)
    low, middle, high = np.quantile(rate, [0.025, 0.5, 0.975])
    return Interval(float(middle), float(low), float(high))


def _variance(passed: int, total: int, c: Confusion, extra: float = 0.0) -> float:
    """The corrected rate's approximate posterior variance with ``extra`` more labels spread over the two classes
    as a random sample of episodes would spread them (``pi`` to the passed class)."""
    pi = (passed + 0.5) / (total + 1)
    q1, n1 = (c.tp + 0.5) / (c.tp + c.fp + 1), c.tp + c.fp + extra * pi
    q0, n0 = (c.fn + 0.5) / (c.fn + c.tn + 1), c.fn + c.tn + extra * (1 - pi)
    episodes = pi * (1 - pi) / (total + 2) * (q1 - q0) ** 2
    return episodes + pi**2 * q1 * (1 - q1) / (n1 + 2) + (1 - pi) ** 2 * q0 * (1 - q0) / (n0 + 2)


def labels_to_halve(passed: int, total: int, c: Confusion, limit: int = 1_000_000) -> int | None:
    """How many more labels, drawn at random from the run's episodes, would halve the corrected rate's interval
    (its variance to a quarter, by the normal approximation); None when ``limit`` labels (the run's unlabeled
    episodes) cannot, because the episodes' own sampling holds too much of the variance: run more episodes."""
    target = _variance(passed, total, c) / 4
    if _variance(passed, total, c, limit) > target:
        return None
    low, high = 0, limit
    while low < high:
        middle = (low + high) // 2
        if _variance(passed, total, c, middle) <= target:
            high = middle
        else:
            low = middle + 1
    return low
