"""A verdict against people's labels: the confusion matrix, kappa and the corrected rate against hand-computed
values, and the corrected interval's coverage where the verdict's error rates are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dialectica.metrics.verdicts import Confusion, _variance, confusion, corrected_rate, kappa, labels_to_halve

# 10 labeled episodes: (verdict, person)
PAIRS = [(True, True)] * 6 + [(True, False)] * 2 + [(False, True)] + [(False, False)]


def test_confusion_and_its_rates_by_hand():
    c = confusion(PAIRS)
    assert c == Confusion(tp=6, fp=2, fn=1, tn=1)
    assert c.accuracy == pytest.approx(0.7)
    assert c.sensitivity == pytest.approx(6 / 7)
    assert c.specificity == pytest.approx(1 / 3)
    assert c.ppv == pytest.approx(0.75) and c.npv == pytest.approx(0.5)
    assert math.isnan(confusion([]).accuracy)


def test_kappa_by_hand():
    # observed agreement 0.7; chance: verdict passes 0.8, people 0.7 -> 0.8 * 0.7 + 0.2 * 0.3 = 0.62
    k = kappa(confusion(PAIRS))
    assert k.estimate == pytest.approx((0.7 - 0.62) / (1 - 0.62))
    assert -1 <= k.low < k.estimate < k.high <= 1
    perfect, few = kappa(Confusion(tp=5, tn=5)), kappa(Confusion(tp=2, tn=2))
    assert perfect.estimate == pytest.approx(1.0) == perfect.high == few.high  # an interval, not a point at 1
    assert 0 < few.low < perfect.low < 0.9  # ten perfect labels bound kappa higher than four
    one = kappa(Confusion(fp=1))  # one label says nothing about chance: a wide interval rather than [0, 0]
    assert one.estimate == 0.0 and one.low < -0.5 and one.high > 0.5


def test_kappa_interval_narrows_with_four_times_the_labels():
    small, large = kappa(Confusion(6, 2, 1, 1)), kappa(Confusion(24, 8, 4, 4))
    assert large.estimate == pytest.approx(small.estimate)
    assert (large.high - large.low) == pytest.approx((small.high - small.low) / 2, rel=0.15)


def test_kappa_undefined_without_labels_or_variation():
    assert math.isnan(kappa(Confusion()).estimate)
    assert math.isnan(kappa(Confusion(tp=7)).estimate)  # both sides always pass: chance agreement is total


def test_corrected_rate_is_the_double_sampling_estimate_once_labels_are_many():
    # the verdict passed 23 of 30; people agreed with 6 of its 8 labeled passes and passed 1 of its 2 labeled fails
    plug_in = 23 / 30 * 0.75 + 7 / 30 * 0.5
    many = Confusion(*(40 * k for k in (6, 2, 1, 1)))  # the same shares from 400 labels, over 3000 episodes
    got = corrected_rate(2300, 3000, many)
    assert got.estimate == pytest.approx(plug_in, abs=0.005)
    assert got.low < got.estimate < got.high
    assert corrected_rate(2300, 3000, many) == got  # seeded
    few = corrected_rate(23, 30, confusion(PAIRS))
    assert few.low < few.estimate < few.high and few.high - few.low > 4 * (got.high - got.low)


def test_the_estimate_lies_inside_its_interval_when_a_class_has_one_label():
    # three labels agree with the verdict's passes, one says its single labeled fail should pass: the shares'
    # own value is 1.00, but four labels cannot say that no episode fails
    got = corrected_rate(17, 20, Confusion(tp=3, fn=1))
    assert got.low <= got.estimate <= got.high < 1.0


def test_a_perfect_verdict_is_near_its_own_rate_and_a_class_without_labels_counts_half():
    assert corrected_rate(1200, 2000, Confusion(tp=500, tn=500)).estimate == pytest.approx(0.6, abs=0.005)
    assert corrected_rate(1000, 2000, Confusion(tp=400)).estimate == pytest.approx(0.5 * 1 + 0.5 * 0.5, abs=0.01)


def test_the_interval_covers_the_true_rate_when_the_verdicts_error_rates_are_known():
    """300 seeded runs of 200 episodes: true rate 0.5, the verdict passes 90% of true successes and 40% of true
    failures (it reports about 0.65); 30 episodes labeled at random each time."""
    rng = np.random.default_rng(11)
    covered, raw_covered, reps = 0, 0, 300
    for rep in range(reps):
        truth = rng.random(200) < 0.5
        verdict = np.where(truth, rng.random(200) < 0.9, rng.random(200) < 0.4)
        labeled = rng.choice(200, 30, replace=False)
        got = corrected_rate(
            int(verdict.sum()), 200, confusion(zip(verdict[labeled], truth[labeled], strict=True)), 4000, rep
        )
        covered += got.low <= 0.5 <= got.high
        raw_covered += abs(verdict.mean() - 0.5) < 1.96 * math.sqrt(0.25 / 200)
    assert 0.91 <= covered / reps <= 0.99, covered / reps
    assert raw_covered / reps < 0.05  # the uncorrected rate misses the truth almost always


def test_labels_to_halve_the_interval():
    c = confusion(PAIRS)
    m = labels_to_halve(23, 300, c)
    assert m is not None and m > 0
    assert _variance(23, 300, c, m) <= _variance(23, 300, c) / 4 < _variance(23, 300, c, m - 1)


def test_labels_cannot_halve_what_the_episodes_sampling_holds():
    assert labels_to_halve(5, 10, Confusion(tp=5, tn=5)) is None


def test_labels_to_halve_never_asks_for_more_episodes_than_are_left():
    c = confusion(PAIRS)
    needed = labels_to_halve(23, 300, c)
    assert needed is not None
    assert labels_to_halve(23, 300, c, limit=needed) == needed
    assert labels_to_halve(23, 300, c, limit=needed - 1) is None  # fewer left than it takes: run more episodes
