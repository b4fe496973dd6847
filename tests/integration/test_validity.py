"""``dialectica validity`` end to end against an OpenAI-compatible server on loopback: both casts on the
same seeds, the report files, and an MLflow parent run holding the grid's runs."""

from __future__ import annotations

import json
import re

import pytest
from mlflow.tracking import MlflowClient

from dialectica.sim.analysis.validity import run
from dialectica.sim.dev.latency_server import serving


@pytest.fixture(scope="module")
def url():
    with serving(latency_s=0.0) as base:
        yield base


@pytest.mark.parametrize(
    ("graph", "grid", "llm_roles"),
    [
        ("interview", "grid.budget=3,8", {"interviewee"}),  # participants are the LLM, the graph's own roles scripted
        ("tribunal", "grid.dispersion_threshold=0.5,3.0", {"prosecutor", "defense", "tech_lead"}),  # no participants
    ],
)
def test_validity_report_for_a_graph(graph, grid, llm_roles, url, tmp_path, capsys):
    lines: list[str] = []
    report = run(
        [
            f"graph={graph}",
            grid,
            "episodes=3",
            "seed=2",
            "llm=openai",
            f"llm.base_url={url}",
            "llm.model=latency",
            "max_concurrency=3",
            f"tracking.uri=sqlite:///{tmp_path / 'ml.db'}",
            "view.enabled=false",
        ],
        cwd=tmp_path,
        echo=lines.append,
    )
    out = next((tmp_path / "results" / "validity").iterdir())
    bars = [line for line in capsys.readouterr().err.split("\n") if f"{graph}: 100%" in line]
    assert len(bars) == 6  # every run's episode bar, finished, on its own line
    assert json.loads((out / "validity.json").read_text())["configs"] == json.loads(json.dumps(report["configs"]))
    assert (out / "validity.png").stat().st_size > 0 and "| LLM replies unread |" in (out / "validity.md").read_text()
    assert len(report["configs"]) == 2 and report["episodes"] == 3 and "calibrated_spearman" in report

    casts = ("scripted", "llm", "calibrated")  # every built-in graph ships a calibrated set: its own column
    runs = {}
    for i in range(2):
        for cast in casts:
            records = [json.loads(line) for line in (out / f"{i}-{cast}" / "episodes.jsonl").read_text().splitlines()]
            runs[i, cast] = records
            on_llm = sum(r["timings"]["cache_lookups"] for r in records)  # calls that went to the server
            by_role = sum(n for r in records for role, n in r["usage"]["calls_by_role"].items() if role in llm_roles)
            assert on_llm == (by_role if cast == "llm" else 0)
            rate = sum(r["termination_reason"] == "converged" for r in records) / 3
            assert report["configs"][i][f"{cast}_rate"] == rate
            if cast == "llm":  # what the harness could not read of the model, beside its rate
                usage = [r["usage"] for r in records]
                seen = {k: report["configs"][i][f"llm_{k}"] for k in ("calls", "unread_replies", "errors")}
                # the server answers every schema with a valid reply (the tribunal's: one slot per criterion)
                assert seen["calls"] == sum(u["llm_calls"] for u in usage) > 0
                assert seen["unread_replies"] == sum(u["parse_failures"] + u["empty_replies"] for u in usage) == 0
                assert seen["errors"] == sum(r["termination_reason"] == "error" for r in records)
        # the same seeds and scenarios under both casts
        pairs = {cast: [(r["seed"], r["scenario"]) for r in runs[i, cast]] for cast in casts}
        assert pairs["scripted"] == pairs["llm"] == pairs["calibrated"]
        row = report["configs"][i]
        assert row["calibrated_inside_llm_ci"] == (row["llm_ci95_low"] <= row["calibrated_rate"] <= row["llm_ci95_high"])
    assert sum(r["timings"]["cache_lookups"] for r in runs[0, "llm"]) > 0
    assert re.fullmatch(r".*calibrated\.yaml sha256:[0-9a-f]{12}", report["calibrated_set"])  # which set played

    client = MlflowClient(f"sqlite:///{tmp_path / 'ml.db'}")
    experiment = client.get_experiment_by_name("dialectica")
    found = client.search_runs([experiment.experiment_id])
    parent = next(r for r in found if r.data.tags.get("validity") == "true")
    children = [r for r in found if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    assert len(children) == 2 * len(casts) and parent.data.params["graph"] == graph
    artifacts = {a.path for a in client.list_artifacts(parent.info.run_id)}
    assert {"validity.json", "validity.md", "validity.png"} <= artifacts


def test_a_grid_point_out_of_range_is_refused_before_any_episode_runs(url, tmp_path):
    from dialectica.sim.authoring.params import ConfigError

    args = ["graph=tribunal", "grid.dispersion_threshold=0.5,4.5", "episodes=1", "llm=openai", f"llm.base_url={url}"]
    with pytest.raises(ConfigError, match=r"graph.dispersion_threshold=4.5 is out of range; valid range: \[0.0, 4.0\]"):
        run([*args, "llm.model=latency", "tracking=none"], cwd=tmp_path, echo=lambda _: None)
    assert not (tmp_path / "results" / "validity").exists() or not any((tmp_path / "results" / "validity").iterdir())
