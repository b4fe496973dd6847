"""Paired comparison of two configurations: exact McNemar over shared episodes, Fisher without, Holm."""

from __future__ import annotations

from math import comb

import pytest

from dialectica.metrics.paired import compare, holm


def _outcomes(pattern: str) -> dict[tuple[int, str], bool]:
    return {(i, "s"): ch == "1" for i, ch in enumerate(pattern)}


def test_mcnemar_is_the_exact_binomial_on_discordant_pairs():
    a = _outcomes("1" * 8 + "0" + "1" * 5 + "0" * 6)  # a alone succeeds on 8 pairs, b alone on 1
    b = _outcomes("0" * 8 + "1" + "1" * 5 + "0" * 6)
    result = compare(a, b)
    assert result.test == "mcnemar" and result.pairs == 20
    assert result.p == pytest.approx(2 * (comb(9, 0) + comb(9, 1)) / 2**9)
    assert result.diff == pytest.approx(7 / 20)
    assert result.low <= result.diff <= result.high and result.low > 0


def test_pairing_finds_a_difference_that_independent_samples_hide():
    # b succeeds wherever a does, and on 6 pairs more: a consistent gain among many shared failures
    a = _outcomes("1" * 20 + "0" * 40)
    b = _outcomes("1" * 26 + "0" * 34)
    paired = compare(b, a)
    unpaired = compare(b, {(i + 1000, "s"): v for (i, _), v in a.items()})
    assert unpaired.test == "fisher" and unpaired.pairs == 0
    assert paired.p < 0.05 < unpaired.p
    assert unpaired.low < 0 < unpaired.high


def test_identical_outcomes_do_not_differ():
    a = _outcomes("1100101")
    result = compare(a, dict(a))
    assert result.p == 1.0 and result.diff == 0 and result.low == result.high == 0


def test_the_bootstrap_interval_is_seeded():
    a, b = _outcomes("110100111010"), _outcomes("100110011001")
    assert compare(a, b, seed=3) == compare(a, b, seed=3)


def test_holm_matches_the_step_down_by_hand():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []
