"""The regression check's verdicts on hand-made baselines."""

from __future__ import annotations

from dialectica.sim.compare import compare, compared, table

BASE = {"episodes": 150, "convergence_rate": 0.5, "convergence_rate_ci95_low": 0.42, "convergence_rate_ci95_high": 0.58,
        "depth_mean": 4.0, "episode_seconds_p50": 0.05, "node_seconds_p50/x": 0.01, "gone_mean": 1.0}


def _verdicts(now, tolerances=None):
    return {name: verdict for name, _, _, verdict in compare("g", BASE, now, tolerances or {}, 0.05)}


def test_wall_clock_metrics_are_not_compared():
    assert "episode_seconds_p50" not in compared(BASE) and "node_seconds_p50/x" not in compared(BASE)


def test_rates_use_their_interval_and_others_a_tolerance():
    same = BASE | {"episode_seconds_p50": 9.0}
    assert set(_verdicts(same).values()) == {"ok"}
    assert _verdicts(BASE | {"convergence_rate": 0.57})["convergence_rate"] == "ok"  # inside the baseline CI
    assert _verdicts(BASE | {"convergence_rate": 0.60})["convergence_rate"] == "REGRESSION"
    assert _verdicts(BASE | {"depth_mean": 4.19})["depth_mean"] == "ok"  # within 5%
    assert _verdicts(BASE | {"depth_mean": 4.3})["depth_mean"] == "REGRESSION"
    assert _verdicts(BASE | {"depth_mean": 4.3}, {"depth_mean": 0.1})["depth_mean"] == "ok"


def test_missing_and_new_metrics():
    now = {k: v for k, v in BASE.items() if k != "gone_mean"} | {"fresh_mean": 2.0}
    verdicts = _verdicts(now)
    assert verdicts["gone_mean"] == "REGRESSION" and verdicts["fresh_mean"] == "new"


def test_table_lists_failures_with_delta():
    rows = compare("g", BASE, BASE | {"depth_mean": 5.0}, {}, 0.05)
    text = table("g", rows, everything=False)
    assert "1 regression(s)" in text and "depth_mean" in text and "REGRESSION" in text and "convergence_rate " not in text
    assert "convergence_rate" in table("g", rows, everything=True)
