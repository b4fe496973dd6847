"""The regression check's verdicts on hand-made baselines."""

from __future__ import annotations

from dialectica.sim.analysis.compare import compare, compared, table

BASE = {
    "episodes": 150,
    "convergence_rate": 0.5,
    "convergence_rate_ci95_low": 0.42,
    "convergence_rate_ci95_high": 0.58,
    "depth_mean": 4.0,
    "episode_seconds_p50": 0.05,
    "node_seconds_p50/x": 0.01,
    "gone_mean": 1.0,
}


def _verdicts(now, tolerances=None):
    return {name: verdict for name, _, _, verdict in compare("g", BASE, now, tolerances or {}, 0.05)}


def test_wall_clock_metrics_are_not_compared():
    assert "episode_seconds_p50" not in compared(BASE) and "node_seconds_p50/x" not in compared(BASE)


def test_rates_use_their_interval_and_others_a_tolerance():
    same = BASE | {"episode_seconds_p50": 9.0}
    assert set(_verdicts(same).values()) == {"ok"}
    assert _verdicts(BASE | {"convergence_rate": 0.57})["convergence_rate"] == "ok"  # inside the baseline CI
    assert _verdicts(BASE | {"convergence_rate": 0.40})["convergence_rate"] == "REGRESSION"
    assert _verdicts(BASE | {"convergence_rate": 0.60})["convergence_rate"] == "improved"  # a gain fails nothing
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


def test_ci_reports_junit_markdown_and_json(tmp_path):
    import json
    import xml.etree.ElementTree as ET

    from dialectica.sim.analysis.ci_report import write

    baseline = {
        "convergence_rate": 0.5,
        "convergence_rate_ci95_low": 0.4,
        "convergence_rate_ci95_high": 0.6,
        "rounds_mean": 3.0,
        "depth_mean": 2.0,
    }
    now = {
        "convergence_rate": 0.2,
        "convergence_rate_ci95_low": 0.1,
        "convergence_rate_ci95_high": 0.3,
        "rounds_mean": 3.05,
        "depth_mean": 2.0,
        "brand_new": 1.0,
    }
    rows = compare("g", baseline, now, {}, 0.05)
    paths = write(tmp_path / "out", {"g": rows, "h": None}, {"g": baseline}, {}, 0.05)
    assert [p.name for p in paths] == ["comparison.json", "comparison.md", "junit.xml"]

    suites = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    g, h = suites.findall("testsuite")
    cases = {c.get("name"): c for c in g.findall("testcase")}
    regressions = [r[0] for r in rows if r[3] == "REGRESSION"]
    assert "convergence_rate" in regressions and "rounds_mean" not in regressions
    assert g.get("tests") == str(len(rows)) and g.get("failures") == str(len(regressions))
    assert sorted(c.get("name") for c in g.findall("testcase") if c.find("failure") is not None) == sorted(regressions)
    assert "outside the baseline's 95% interval [0.4, 0.6]" in cases["convergence_rate"].find("failure").get("message")
    assert cases["rounds_mean"].find("failure") is None and cases["brand_new"].find("skipped") is not None
    assert h.get("failures") == "1" and "dialectica compare --update" in h.find("testcase/failure").get("message")

    report = json.loads((tmp_path / "out" / "comparison.json").read_text())
    assert report["regression"] is True and report["graphs"]["h"]["baseline"] is None
    verdicts = {r["metric"]: r["verdict"] for r in report["graphs"]["g"]["rows"]}
    assert verdicts["convergence_rate"] == "REGRESSION" and verdicts["depth_mean"] == "ok"
    md = (tmp_path / "out" / "comparison.md").read_text()
    assert "**Regression.**" in md and "| g | " in md and "`convergence_rate`" in md and "`depth_mean`" not in md

    write(tmp_path / "ok", {"g": compare("g", baseline, baseline, {}, 0.05)}, {"g": baseline}, {}, 0.05)
    assert json.loads((tmp_path / "ok" / "comparison.json").read_text())["regression"] is False
    assert "No regression." in (tmp_path / "ok" / "comparison.md").read_text()
    assert ET.parse(tmp_path / "ok" / "junit.xml").getroot().find("testsuite").get("failures") == "0"


def test_no_baselines_is_bad_input_before_any_run(tmp_path, capsys):
    from dialectica.sim.cli.main import dispatch

    assert dispatch("compare", ["--baselines", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert f"no baselines in {tmp_path / 'none'}" in err and "--update" in err


def test_an_interval_judges_its_rate_and_is_not_a_row_of_its_own():
    baseline = {"convergence_rate": 0.5, "convergence_rate_ci95_low": 0.4, "convergence_rate_ci95_high": 0.6}
    now = {"convergence_rate": 0.2, "convergence_rate_ci95_low": 0.1, "convergence_rate_ci95_high": 0.3}
    assert compare("g", baseline, now, {}, 0.05) == [("convergence_rate", 0.5, 0.2, "REGRESSION")]


def test_a_share_of_the_episodes_is_judged_like_the_rate_it_equals():
    base = {"episodes": 20, "convergence_rate": 0.65, "convergence_rate_ci95_low": 0.43, "convergence_rate_ci95_high": 0.82}
    base |= {"pass_hat/1": 0.65, "termination/converged": 0.65, "termination/max_turns": 0.35, "rounds_mean": 3.0}
    now = base | {"convergence_rate": 0.5, "pass_hat/1": 0.5, "termination/converged": 0.5, "termination/max_turns": 0.5}
    verdicts = {name: verdict for name, _, _, verdict in compare("g", base, now, {}, 0.05)}
    assert {verdicts[k] for k in ("convergence_rate", "pass_hat/1", "termination/converged")} == {"ok"}
    assert verdicts["termination/max_turns"] == "ok"  # 0.35 -> 0.5 of 20 episodes: inside its Wilson interval
    far = {
        name: v for name, _, _, v in compare("g", base, base | {"pass_hat/1": 0.1, "termination/max_turns": 0.9}, {}, 0.05)
    }
    assert far["pass_hat/1"] == "REGRESSION" and far["termination/max_turns"] == "REGRESSION"  # no better direction


def test_pass_hat_k_is_a_share_over_the_disjoint_runs_of_k():
    base = {"episodes": 20, "pass_hat/1": 0.65, "pass_hat/2": 0.49, "pass_hat/5": 0.2}
    two_flips = {"episodes": 20, "pass_hat/1": 0.55, "pass_hat/2": 0.33, "pass_hat/5": 0.05}  # the trial's 2 of 20
    verdicts = {name: v for name, _, _, v in compare("g", base, two_flips, {}, 0.05)}
    assert set(verdicts.values()) == {"ok"}  # 10 pairs, 4 runs of five: each inside its interval
    gone = {name: v for name, _, _, v in compare("g", base, base | {"pass_hat/2": 0.0}, {}, 0.05)}
    assert gone["pass_hat/2"] == "REGRESSION"  # 0 of 10 pairs against 0.49: outside


def test_a_pass_or_fail_per_episode_is_a_share_and_a_score_on_another_scale_is_not():
    base = {"episodes": 20, "trajectory/match_mean": 0.9, "rubric/role_adherence_mean": 0.65}
    base |= {"score/refund_mentioned_mean": 0.65, "score/stars_mean": 3.5}
    one_flip = {k: v - 0.05 for k, v in base.items() if k != "episodes"}  # one episode of twenty
    verdicts = {name: verdict for name, _, _, verdict in compare("g", base, base | one_flip, {}, 0.05)}
    assert verdicts["trajectory/match_mean"] == verdicts["rubric/role_adherence_mean"] == "ok"
    assert verdicts["score/refund_mentioned_mean"] == "ok"
    assert verdicts["score/stars_mean"] == "ok"  # 3.5 -> 3.45: inside the 5% tolerance, a 1-5 scale's own
    far = {name: v for name, _, _, v in compare("g", base, base | {"score/stars_mean": 3.0}, {}, 0.05)}
    assert far["score/stars_mean"] == "REGRESSION"
    gain = {name: v for name, _, _, v in compare("g", base, base | {"rubric/role_adherence_mean": 1.0}, {}, 0.05)}
    assert gain["rubric/role_adherence_mean"] == "improved"


def test_tolerances_are_checked_before_the_suite_runs(tmp_path):
    import pytest

    from dialectica.sim.analysis.compare import check_tolerances
    from dialectica.sim.authoring.params import ConfigError

    path = tmp_path / "tolerances.yaml"
    cases = {
        "pass_hat/10: lots\n": r"pass_hat/10='lots' must be a number >= 0",
        "pass_hat/10: [1\n": r"not YAML \(line \d\)",
        "depth_meen: 0.1\n": r"depth_meen is no metric of the baselines \(did you mean depth_mean\?\)",
    }
    for text, message in cases.items():
        path.write_text(text)
        with pytest.raises(ConfigError, match=message):
            check_tolerances(path, {"depth_mean", "pass_hat/10"})
    path.write_text("depth_mean: 0.1\n")
    assert check_tolerances(path, {"depth_mean"}) == {"depth_mean": 0.1}


def test_a_check_runs_the_baselines_suite_and_refuses_another(tmp_path):
    import pytest

    from dialectica.sim.analysis.compare import check_suite, suite_overrides
    from dialectica.sim.authoring.params import ConfigError

    made = ["episodes=20", "progress=false", "graph.scenarios=s.yaml", "graph.refund_window_days=7"]
    kept = {"suite": suite_overrides(made)}
    assert kept["suite"] == ["episodes=20", "graph.scenarios=s.yaml"]  # the graph's knob is what a check varies
    path = tmp_path / "g.json"
    assert check_suite("g", kept, ["graph.refund_window_days=30"], path) == [
        "graph.refund_window_days=30",
        "episodes=20",
        "graph.scenarios=s.yaml",
    ]  # none given: the baseline's
    assert check_suite("g", kept, ["graph.scenarios=s.yaml", "episodes=20"], path) == [
        "graph.scenarios=s.yaml",
        "episodes=20",
    ]
    assert check_suite("g", kept, ["episodes=20"], path) == ["episodes=20", "graph.scenarios=s.yaml"]  # one agrees
    differs = (
        r"another suite \(episodes=40 given, the baseline's episodes=20; "
        r"seed=3 given, the baseline's seed=20261121 \(the suite's default\)\)"
    )
    with pytest.raises(ConfigError, match=differs):
        check_suite("g", kept, ["episodes=40", "graph.scenarios=s.yaml", "seed=3"], path)
    assert check_suite("g", {}, ["episodes=40"], path) == ["episodes=40"]  # a baseline from before suites were kept
    assert check_suite("g", kept, ["seed=20261121"], path)[0] == "seed=20261121"  # the suite's own seed: agreed
    assert check_suite("g", kept, ["participants=scripted"], path)[0] == "participants=scripted"  # its own group
    with pytest.raises(ConfigError, match=r"seed=0 given, the baseline's seed=20261121 \(the suite's default\)"):
        check_suite("g", kept, ["seed=0"], path)  # conf/config.yaml's seed, not the suite's


def test_a_graph_without_a_baseline_is_bad_input_before_any_run(tmp_path, capsys):
    from dialectica.sim.cli.main import dispatch

    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "interview.json").write_text("{}")
    assert dispatch("compare", ["--baselines", str(tmp_path / "b"), "--graphs", "committee", "episodes=2"]) == 2
    err = capsys.readouterr().err
    assert f"no baseline for committee at {tmp_path / 'b' / 'committee.json'}" in err and "--update" in err


def test_a_gain_in_convergence_fails_nothing_under_any_of_its_names():
    base = {"episodes": 150, "convergence_rate": 0.95, "termination/converged": 0.95, "termination/budget_exhausted": 0.05}
    base |= {f"persona/{p}/convergence_rate": 0.85 for p in "abcd"}  # a graph's own breakdown: 4 groups of ~38
    now = base | {"convergence_rate": 0.99, "termination/converged": 0.99, "termination/budget_exhausted": 0.01}
    now |= {"persona/a/convergence_rate": 0.975, "persona/b/convergence_rate": 0.75}
    verdicts = {name: v for name, _, _, v in compare("g", base, now, {}, 0.05)}
    assert verdicts["termination/budget_exhausted"] == "improved"  # a way of not converging, rarer
    assert verdicts["persona/a/convergence_rate"] == "improved"
    assert verdicts["persona/b/convergence_rate"] == "ok"  # 0.85 -> 0.75 of ~38 episodes: inside its Wilson interval
    tutor = {"episodes": 150, "termination/synthesis": 0.5, "termination/converged": 0.0}
    ended = {name: v for name, _, _, v in compare("g", tutor, tutor | {"termination/synthesis": 0.7}, {}, 0.05)}
    assert ended["termination/synthesis"] == "REGRESSION"  # not a converging ending unless the graph says so
    said = compare("g", tutor, tutor | {"termination/synthesis": 0.7}, {}, 0.05, converging=("synthesis", "aporia"))
    assert dict((n, v) for n, _, _, v in said)["termination/synthesis"] == "improved"
