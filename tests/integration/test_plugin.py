"""The example plugin (examples/custom_graph) installed beside Dialectica: found, listed, run, swept, tracked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom_graph"


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example installed into its own folder (not into the test environment, whose graph list stays five)."""
    target = tmp_path_factory.mktemp("plugin")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(EXAMPLE),
        ],
        check=True,
        capture_output=True,
    )
    return target


def _dialectica(plugin: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(plugin)}
    return subprocess.run(
        [sys.executable, "-m", "dialectica", *args], capture_output=True, text=True, cwd=cwd, env=env, check=False
    )


def test_list_shows_the_plugin_as_a_sixth_graph_with_its_scenarios_and_params(plugin_path: Path, tmp_path: Path):
    proc = _dialectica(plugin_path, tmp_path, "list")
    assert proc.returncode == 0, proc.stderr
    headers = [line.split()[0] for line in proc.stdout.splitlines() if line and not line.startswith(" ")]
    assert headers == ["committee", "haggle", "interview", "maieutic", "socratic_panel", "tribunal"]
    assert "plugin haggle:SPEC" in proc.stdout and "scenarios (2): bike, sofa" in proc.stdout
    assert "graph.gap = 0.05 in [0.0, 1.0]" in proc.stdout


def test_the_plugin_runs_with_mlflow_and_pages_and_resumes(plugin_path: Path, tmp_path: Path):
    out, db = tmp_path / "run", tmp_path / "ml.db"
    args = (
        "graph=haggle",
        "episodes=6",
        "embeddings=false",
        "progress=false",
        f"tracking.uri=sqlite:///{db}",
        f"hydra.run.dir={out}",
    )
    proc = _dialectica(plugin_path, tmp_path, *args)
    assert proc.returncode == 0, proc.stderr
    entry = json.loads((out / "summary.json").read_text())["graphs"]["haggle"]
    assert entry["mlflow_run_id"] and entry["metrics"]["episodes"] == 6
    assert (out / "haggle" / "view" / "index.html").exists()
    from mlflow.tracking import MlflowClient

    run = MlflowClient(f"sqlite:///{db}").get_run(entry["mlflow_run_id"])
    assert run.data.params["graph.gap"] == "0.05" and run.data.metrics["episodes"] == 6
    before = (out / "episodes.jsonl").read_text()
    proc = _dialectica(plugin_path, tmp_path, *args, "resume=true")
    assert proc.returncode == 0 and "already finished" in proc.stdout
    assert (out / "episodes.jsonl").read_text() == before


def test_a_sweep_over_the_plugins_threshold(plugin_path: Path, tmp_path: Path):
    proc = _dialectica(
        plugin_path,
        tmp_path,
        "-m",
        "graph=haggle",
        "graph.gap=0.01,0.3",
        "episodes=8",
        "scenario=sofa",
        "embeddings=false",
        "progress=false",
        "tracking=none",
        "view.enabled=false",
        f"hydra.sweep.dir={tmp_path / 'sweep'}",
    )
    assert proc.returncode == 0, proc.stderr
    rates = [
        json.loads((tmp_path / "sweep" / str(i) / "summary.json").read_text())["graphs"]["haggle"]["metrics"][
            "convergence_rate"
        ]
        for i in (0, 1)
    ]
    assert rates[0] < rates[1]


def test_the_plugins_own_tests_pass(plugin_path: Path, tmp_path: Path):
    env = {**os.environ, "PYTHONPATH": str(plugin_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "tests")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
