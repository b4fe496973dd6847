"""dialectica plan: the paired fixed-design size has the power it promises, and the sequential figures say
where a sequential design saves."""

from __future__ import annotations

import numpy as np
import pytest

from dialectica.sim.analysis.plan import fixed_size, needs, sequential_use


def test_the_fixed_size_has_the_power_it_promises():
    from statsmodels.stats.contingency_tables import mcnemar

    psi, diff = 0.2, 0.1
    n = fixed_size(psi, diff, 0.05, 0.8)
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(300):
        u = rng.random(n)
        b, c = int(np.sum(u < (psi + diff) / 2)), int(np.sum((u >= (psi + diff) / 2) & (u < psi)))
        hits += mcnemar([[0, b], [c, 0]], exact=True).pvalue < 0.05
    assert 0.7 <= hits / 300 <= 0.9
    assert fixed_size(psi, diff / 2, 0.05, 0.8) > 3 * n  # half the difference, about four times the episodes


def test_a_sequential_design_saves_when_the_difference_is_larger_than_the_one_planned_for():
    n = fixed_size(0.3, 0.05, 0.05, 0.8)
    at_target, share = sequential_use(0.3, 0.05, 0.05, n, runs=200)
    at_larger, _ = sequential_use(0.3, 0.2, 0.05, n, runs=200)
    assert at_larger < n / 5 < at_target and 0 < share < 1


def test_needs_compares_each_configuration_with_the_pilots_best():
    best = {(i, "s"): i % 10 < 8 for i in range(100)}
    worse = {(i, "s"): i % 10 < 5 for i in range(100)}
    same = dict(best)
    (row,) = needs({"a": worse, "b": best}, diff=0.1)
    assert row.best == "b" and row.config == "a" and row.observed_diff == pytest.approx(0.3)
    assert row.discordance == pytest.approx(0.3) and row.fixed is not None
    (tie,) = needs({"a": same, "b": best}, diff=0.1)
    assert tie.fixed is None  # no disagreement in the pilot: nothing to size from


def test_the_table_signs_the_difference_as_a_sweeps_comparison_does():
    from dialectica.sim.analysis.plan import Need, table

    text = table([Need("a", "b", 20, 0.3, 0.25, 40, 30.0, 0.9, 20.0)], 0.2, 0.05, 0.8)
    assert "pilot diff_vs_best" in text and "| -0.250 |" in text  # a worse configuration: negative, as diff_vs_best
