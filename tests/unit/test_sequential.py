"""Anytime-valid bounds and the sequential race: their error stays at delta at every look, and they stop early
where the answer is clear."""

from __future__ import annotations

import numpy as np
import pytest

from dialectica.metrics.sequential import Race, first_decided, log_mixture, paired_sign, rate_bounds
from dialectica.sim.analysis.sequential import Bank, fixed_choice, race, race_figures


def test_the_rate_sequence_covers_the_true_rate_at_every_look_at_once():
    rng = np.random.default_rng(3)
    delta, p, looks = 0.1, 0.3, range(10, 301, 10)
    missed = 0
    for _ in range(200):
        draws = rng.random(300) < p
        missed += any(not (lo <= p <= hi) for lo, hi in (rate_bounds(int(draws[:n].sum()), n, delta) for n in looks))
    assert missed / 200 <= delta  # Ville: crossing ever, not at one fixed n
    lo, hi = rate_bounds(90, 300, delta)
    assert lo < 0.3 < hi and hi - lo < 0.2  # and it narrows


def test_the_mixture_is_a_likelihood_ratio_that_grows_against_a_wrong_rate():
    assert log_mixture(50, 100, 0.5) < 0 < log_mixture(90, 100, 0.5)
    assert log_mixture(0, 10, 0.0) < np.inf and log_mixture(1, 10, 0.0) == np.inf


def test_paired_sign_needs_evidence_and_says_which_side():
    assert paired_sign(6, 4, 0.05) == 0
    assert paired_sign(40, 5, 0.05) == 1 and paired_sign(5, 40, 0.05) == -1


def test_identical_configurations_are_never_told_apart_more_often_than_delta():
    rng = np.random.default_rng(5)
    wrong = 0
    for _ in range(200):
        a = rng.random(300) < 0.6
        b = rng.random(300) < 0.6
        signs = [paired_sign(int((a[:n] & ~b[:n]).sum()), int((~a[:n] & b[:n]).sum()), 0.05) for n in range(10, 301, 10)]
        wrong += any(signs)
    assert wrong / 200 <= 0.05


def _stream(rates, n, rng, shared=True):
    u = rng.random(n)
    return np.asarray([(u if shared else rng.random(n)) < r for r in rates])


def test_the_best_rule_stops_early_on_a_clear_grid_and_picks_the_best():
    stream = _stream([0.12, 0.39, 0.75, 0.95], 300, np.random.default_rng(1))
    state = race(stream, "best", 0.05, 300, 10)
    assert state.choice() == 3 == fixed_choice(stream, "best", None)
    assert state.episodes_used < 0.5 * stream.size
    assert state.dropped_at[0] < state.dropped_at[2]  # the far-off configuration goes first


def test_the_floor_rule_picks_the_first_configuration_above_the_floor():
    stream = _stream([0.2, 0.5, 0.9, 0.95], 300, np.random.default_rng(2))
    state = race(stream, "floor", 0.05, 300, 10, floor=0.7)
    assert state.choice() == 2 == fixed_choice(stream, "floor", 0.7)
    assert state.episodes_used < stream.size


def test_an_undecidable_race_plays_the_fixed_design_and_falls_back_to_the_estimates():
    stream = _stream([0.5, 0.5], 300, np.random.default_rng(4), shared=False)
    state = race(stream, "best", 0.05, 300, 10)
    assert state.episodes_used <= stream.size and state.choice() in (0, 1)


def test_bad_rules_are_refused():
    with pytest.raises(ValueError, match="valid choices: best, floor"):
        Race(2, rule="cheapest")
    with pytest.raises(ValueError, match="floor"):
        Race(2, rule="floor")


def test_race_figures_compare_with_the_fixed_design_on_draws_of_the_bank():
    rng = np.random.default_rng(0)
    data = Bank("toy", ["a", "b", "c"], _stream([0.1, 0.5, 0.95], 1200, rng))
    figures = race_figures(data, sweeps=20, max_episodes=300)
    assert figures["same_choice"] >= 0.95 and figures["share_used_mean"] < 0.5
    assert figures["truth"] == "c" and figures["settled_wrong"] <= 0.05
    with pytest.raises(ValueError, match="max_episodes=2000"):
        race_figures(data, max_episodes=2000)


def test_first_decided_is_where_the_paired_sign_first_decides():
    x = [True] * 40
    y = [False] * 40
    n = first_decided(x, y, 0.05)
    assert n is not None and paired_sign(n, 0, 0.05) == 1 and paired_sign(n - 1, 0, 0.05) == 0
    assert first_decided([True, False] * 50, [False, True] * 50, 0.05) is None  # the pairs split evenly


def test_a_paired_comparison_says_where_an_anytime_test_decided():
    from dialectica.metrics.paired import compare

    a = {i: True for i in range(60)}
    b = {i: i % 3 == 0 for i in range(60)}
    result = compare(a, b)
    assert result.test == "mcnemar" and result.decided_at is not None and result.decided_at < 60
    assert compare({i: True for i in range(5)}, {i: False for i in range(5)}).decided_at is None  # too few


def test_a_choice_the_cap_made_has_no_decided_at(tmp_path):
    from dialectica.sim.engine.sequential import Rules, report

    stream = _stream([0.5, 0.5], 20, np.random.default_rng(4), shared=False)
    state = race(stream, "best", 0.05, 20, 10)
    assert not state.settled  # 20 episodes cannot tell two equal rates apart
    values = report(state, ["a=1", "a=2"], Rules(max_episodes=20), tmp_path)
    chosen = next(c for c in values["configurations"] if c["status"] == "chosen")
    assert values["decided"] is False and chosen["decided_at"] is None


def test_a_floor_no_configuration_reaches_is_decided_with_none_chosen(tmp_path):
    from dialectica.sim.engine.sequential import Rules, report, table

    state = Race(2, "floor", 0.05, max_episodes=100, floor=0.9)
    for k in (0, 1):
        state.add(k, [False] * 20)
    state.update()
    assert not state.active and state.settled and state.decided and state.choice() is None
    values = report(state, ["a=1", "a=2"], Rules(rule="floor", floor=0.9, max_episodes=100), tmp_path)
    assert values["decided"] is True and values["chosen"] is None
    assert "(decided: none reaches the floor 0.9)" in table(values)


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        ({"rule": "flor"}, "rule='flor' is invalid; valid values: best, floor"),
        ({"rule": "floor"}, "rule=floor needs floor=RATE"),
        ({"floor": 0.8}, "floor=0.8 applies to rule=floor only"),
        ({"rule": "floor", "floor": 80.0}, "floor=80 is invalid; valid values: a rate in (0, 1]"),
        ({"rule": "floor", "floor": -0.2}, "floor=-0.2 is invalid"),
        ({"delta": 1.5}, "delta=1.5 is invalid"),
        ({"max_episodes": 4, "step": 10}, "max_episodes=4 is invalid; valid values: integers 10 (step)..1,000,000"),
    ],
)
def test_the_races_keys_are_refused_by_name(keys, words):
    from dialectica.sim.authoring.params import ConfigError
    from dialectica.sim.cli.sequential import rules_of

    with pytest.raises(ConfigError) as err:
        rules_of(keys)
    assert words in str(err.value)
