"""pass^k and the sweep's grouping of jobs into configurations."""

from __future__ import annotations

import math

import pytest

from dialectica.metrics.passk import mean_pass_hat_k, pass_hat_k
from dialectica.sim.tracking.sweep import config_keys, markdown


def test_pass_hat_k_by_hand():
    assert pass_hat_k(3, 4, 1) == pytest.approx(0.75)
    assert pass_hat_k(3, 4, 2) == pytest.approx(3 / 6)  # C(3,2)/C(4,2)
    assert pass_hat_k(3, 4, 4) == 0.0 and pass_hat_k(4, 4, 4) == 1.0
    assert math.isnan(pass_hat_k(1, 2, 3))
    assert mean_pass_hat_k([(2, 2), (0, 2), (1, 1)], 2) == pytest.approx(0.5)  # the 1-trial task is skipped


def test_pass_hat_k_never_exceeds_pass_one():
    for c in range(6):
        assert pass_hat_k(c, 5, 3) <= pass_hat_k(c, 5, 1) + 1e-12


def test_config_keys_keep_only_what_varies_and_drop_the_seed():
    jobs = [
        ["graph=x", "graph.t=0.6", "seed=0", "episodes=5"],
        ["graph=x", "graph.t=0.6", "seed=1", "episodes=5"],
        ["graph=x", "graph.t=0.9", "seed=0", "episodes=5"],
    ]
    assert config_keys(jobs) == ["graph.t=0.6", "graph.t=0.6", "graph.t=0.9"]
    assert config_keys([["seed=0"], ["seed=1"]]) == ["(defaults)", "(defaults)"]


def test_markdown_table():
    import pandas as pd

    text = markdown(pd.DataFrame({"config": ["a"], "rate": [0.12345]}))
    assert text.splitlines() == ["| config | rate |", "|---|---|", "| a | 0.123 |"]


def test_pass_hat_in_the_summary_runs_to_the_fewest_episodes_of_a_scenario():
    from dialectica.metrics.summary import pass_hat

    def records(scenario: str, outcomes: str) -> list[dict]:
        return [{"scenario": scenario, "termination_reason": "converged" if o == "1" else "max_rounds"} for o in outcomes]

    values = pass_hat()(records("a", "110") + records("b", "111") + records("c", "0000"))
    assert sorted(values) == ["pass_hat/1", "pass_hat/2", "pass_hat/3"]
    assert values["pass_hat/1"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert values["pass_hat/2"] == pytest.approx((1 / 3 + 1 + 0) / 3)
    assert values["pass_hat/3"] == pytest.approx(1 / 3)
    assert pass_hat()([]) == {}
