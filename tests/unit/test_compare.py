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
