"""Before anything runs: a sweep names its bad job, a dead tracking server is one line; nothing is left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dialectica.sim.config.precheck import MAX_JOBS, expand

BIN = Path(sys.executable).parent / "dialectica"


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "HYDRA_FULL_ERROR"}
    return subprocess.run(
        [str(BIN), *args, "progress=false", "episodes=2"], capture_output=True, text=True, cwd=tmp, env=env, timeout=600
    )


def _one_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stderr[-2000:]
    (line,) = [line for line in proc.stderr.splitlines() if line.strip()]
    assert "Traceback" not in proc.stderr + proc.stdout
    return line


def test_expand_gives_hydras_jobs_in_order():
    jobs = expand(["graph=socratic_panel", "graph.convergence_threshold=0.6,0.8", "seed=range(1,3)"])
    assert jobs == [
        ["graph=socratic_panel", "graph.convergence_threshold=0.6", "seed=1"],
        ["graph=socratic_panel", "graph.convergence_threshold=0.6", "seed=2"],
        ["graph=socratic_panel", "graph.convergence_threshold=0.8", "seed=1"],
        ["graph=socratic_panel", "graph.convergence_threshold=0.8", "seed=2"],
    ]


def test_a_huge_sweep_checks_each_value_once():
    values = ",".join(str(i) for i in range(MAX_JOBS))
    jobs = expand([f"seed={values}", "episodes=1,2"])
    assert len(jobs) == MAX_JOBS + 2
    assert {job[0] for job in jobs} == {f"seed={i}" for i in range(MAX_JOBS)}


def test_a_sweep_names_its_bad_job_before_any_job_starts(tmp_path):
    proc = _run(
        tmp_path,
        "-m",
        "graph=socratic_panel",
        "graph.convergence_threshold=0.6,1.5,0.8",
        "seed=1,2",
        f"hydra.sweep.dir={tmp_path / 'sweep'}",
        f"tracking.uri=sqlite:///{tmp_path / 'ml.db'}",
    )
    line = _one_line(proc)
    assert line.startswith("dialectica: error: sweep job 2 (")
    assert "graph.convergence_threshold=1.5 seed=1" in line and "valid range: [0.0, 1.0]" in line
    assert not (tmp_path / "sweep").exists() and not (tmp_path / "ml.db").exists()


@pytest.mark.parametrize("multirun", [False, True])
def test_an_unreachable_tracking_server_is_one_line_before_any_episode(tmp_path, multirun):
    where = (
        ["-m", "graph.budget=3,6", f"hydra.sweep.dir={tmp_path / 'run'}"]
        if multirun
        else [f"hydra.run.dir={tmp_path / 'run'}"]
    )
    proc = _run(tmp_path, *where, "graph=interview", "tracking.uri=http://user:hunter22@127.0.0.1:9")
    line = _one_line(proc)
    assert "tracking.uri=http://***@127.0.0.1:9: no MLflow server answers there" in line
    assert "mlflow server" in line and "tracking=none" in line and "hunter22" not in proc.stderr
    assert not (tmp_path / "run").exists()
