"""Anytime-valid decisions over configurations that play the same seeded episodes, looked at after every round.

A fixed design runs every configuration ``max_episodes`` times, decided before anything is known. Here the
configurations play in rounds on shared episode seeds, and each decision is taken the first time its evidence
crosses a bound that holds at every look at once (Ville's inequality), so stopping as soon as it is decided keeps
the error at ``delta``:

- a configuration's rate: Robbins' beta-binomial mixture confidence sequence (``rate_bounds``), the set of rates
  ``p`` whose mixture likelihood ratio stays below ``1/delta``;
- two configurations on the same seeds: only the pairs where exactly one converged say which is better; among them
  the share won by one is a Bernoulli whose value 1/2 means "no difference", tested with the same mixture
  (``paired_sign``: a sequential McNemar test).

``Race`` applies one of two rules over a sweep's configurations, with Bonferroni's correction over its
comparisons: ``best`` (the highest rate: a configuration is dropped once another beats it, the race stops when one
is left) and ``floor`` (the first configuration, in the sweep's order, whose rate is at least ``floor``: each is
decided above or below it, and the race stops when the first one above is known and every one before it is
below). At ``max_episodes`` each undecided choice falls back to the point estimates, as the fixed design would.

Pure functions of counts; no I/O. (``confseq`` needs Boost to build and ``expectation`` Python 3.12, so the
bounds are written here, from their closed forms.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq
from scipy.special import betaln

PRIOR = (0.5, 0.5)  # the mixture's Beta prior (Jeffreys): no rate is favoured


def log_mixture(successes: int, n: int, p: float, prior: tuple[float, float] = PRIOR) -> float:
    """Log of the beta-binomial mixture likelihood ratio of ``successes`` in ``n`` against rate ``p``: a nonnegative
    martingale with mean 1 when the rate is ``p``, so it crosses ``log(1/delta)`` with probability at most
    ``delta`` ever."""
    a, b = prior
    failures = n - successes
    mixed = betaln(a + successes, b + failures) - betaln(a, b)
    if p <= 0.0:
        return math.inf if successes else mixed - failures * math.log1p(-p)
    if p >= 1.0:
        return math.inf if failures else mixed - successes * math.log(p)
    return float(mixed - successes * math.log(p) - failures * math.log1p(-p))


def rate_bounds(successes: int, n: int, delta: float) -> tuple[float, float]:
    """The rates not yet ruled out at level ``delta`` after ``successes`` in ``n`` (valid at every ``n`` at once)."""
    if n == 0:
        return 0.0, 1.0
    level = math.log(1.0 / delta)
    centre = (successes + PRIOR[0]) / (n + sum(PRIOR))
    inside = lambda p: log_mixture(successes, n, p) - level  # noqa: E731 - negative inside the sequence
    low = 0.0 if inside(1e-12) < 0 else brentq(inside, 1e-12, centre)
    high = 1.0 if inside(1 - 1e-12) < 0 else brentq(inside, centre, 1 - 1e-12)
    return float(low), float(high)


def paired_sign(wins: int, losses: int, delta: float) -> int:
    """+1 when the first of two configurations is better at level ``delta`` (it won ``wins`` of the pairs where they
    differ, lost ``losses``), -1 when it is worse, 0 while undecided."""
    if log_mixture(wins, wins + losses, 0.5) < math.log(1.0 / delta):
        return 0
    return 1 if wins > losses else -1


def first_decided(x: ArrayLike, y: ArrayLike, delta: float) -> int | None:
    """The number of pairs (in the given order) after which ``paired_sign`` first decides between the paired outcomes
    ``x`` and ``y`` at level ``delta``, or None: where an anytime-valid comparison could have stopped."""
    a, b = np.asarray(x, dtype=bool), np.asarray(y, dtype=bool)
    wins, losses = np.cumsum(a & ~b), np.cumsum(~a & b)
    alpha, beta = PRIOR
    evidence = betaln(alpha + wins, beta + losses) - betaln(alpha, beta) + (wins + losses) * math.log(2.0)
    crossed = np.flatnonzero(evidence >= math.log(1.0 / delta))
    return int(crossed[0]) + 1 if crossed.size else None


@dataclass
class Race:
    """Configurations played in rounds on shared seeds, and what is decided so far.

    Attributes:
        configurations: How many configurations, in the sweep's order (``floor``: cheapest first).
        rule: ``best`` or ``floor``.
        delta: The error level of the whole race (Bonferroni over its comparisons).
        max_episodes: The fixed design's episodes per configuration: no configuration plays more.
        floor: The rate a configuration must reach (``rule="floor"``).
    """

    configurations: int
    rule: str = "best"
    delta: float = 0.05
    max_episodes: int = 300
    floor: float | None = None
    outcomes: list[list[bool]] = field(init=False)
    dropped_at: dict[int, int] = field(init=False, default_factory=dict)  # configuration -> episodes it had then

    def __post_init__(self) -> None:
        if self.rule not in ("best", "floor"):
            raise ValueError(f"rule={self.rule!r}; valid choices: best, floor")
        if self.rule == "floor" and self.floor is None:
            raise ValueError("rule='floor' needs floor=<rate>")
        self.outcomes = [[] for _ in range(self.configurations)]

    @property
    def active(self) -> list[int]:
        """The configurations still playing."""
        return [k for k in range(self.configurations) if k not in self.dropped_at]

    def add(self, k: int, converged: ArrayLike) -> None:
        """Episodes of configuration ``k``, in episode order (the same seeds as the others')."""
        self.outcomes[k].extend(bool(c) for c in np.asarray(converged, dtype=bool).tolist())

    def _level(self) -> float:
        k = self.configurations
        comparisons = k * (k - 1) // 2 if self.rule == "best" else k
        return self.delta / max(1, comparisons)

    def _sign(self, i: int, j: int) -> int:
        n = min(len(self.outcomes[i]), len(self.outcomes[j]))
        a, b = np.asarray(self.outcomes[i][:n]), np.asarray(self.outcomes[j][:n])
        return paired_sign(int(np.sum(a & ~b)), int(np.sum(~a & b)), self._level())

    def _side(self, k: int) -> int:
        """+1: configuration ``k``'s rate is above the floor; -1: below; 0: undecided."""
        assert self.floor is not None
        low, high = rate_bounds(sum(self.outcomes[k]), len(self.outcomes[k]), self._level())
        return 1 if low >= self.floor else -1 if high < self.floor else 0

    def update(self) -> None:
        """Drops the configurations that are decided out."""
        if self.rule == "best":
            for k in self.active:
                if any(self._sign(k, j) < 0 for j in self.active if j != k):
                    self.dropped_at[k] = len(self.outcomes[k])
            return
        sides = {k: self._side(k) for k in self.active}
        first_above = min((k for k, s in sides.items() if s > 0), default=None)
        for k, side in sides.items():
            if side < 0 or (first_above is not None and k > first_above):
                self.dropped_at[k] = len(self.outcomes[k])

    @property
    def settled(self) -> bool:
        """Whether the bounds decided the choice: one configuration left (``best``); the first one left is above
        the floor, or every one is below it (``floor``)."""
        active = self.active
        if self.rule == "best":
            return len(active) <= 1
        return not active or self._side(active[0]) > 0

    @property
    def decided(self) -> bool:
        """Whether to stop: settled, or every configuration left at ``max_episodes``."""
        return self.settled or all(len(self.outcomes[k]) >= self.max_episodes for k in self.active)

    def choice(self) -> int | None:
        """The chosen configuration: decided, or by the point estimates among those left at ``max_episodes``."""
        rates = {k: float(np.mean(self.outcomes[k])) if self.outcomes[k] else 0.0 for k in self.active}
        if not rates:
            return None
        if self.rule == "best":
            return max(rates, key=lambda k: (rates[k], -k))
        assert self.floor is not None
        return next((k for k in sorted(rates) if rates[k] >= self.floor), None)

    @property
    def episodes_used(self) -> int:
        return sum(len(o) for o in self.outcomes)
