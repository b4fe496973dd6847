"""SIGKILL at six seeded moments, for a run of every graph and for a sweep: each run resumed with
``resume=true`` ends with the records, metrics and comparison of the uninterrupted one, and leaves no
MLflow run RUNNING. The moments are drawn across the uninterrupted run's duration, so kills land in
start-up, episodes, outputs and tracking alike."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

BIN = Path(sys.executable).parent / "dialectica"
MOMENTS = 6  # ten took 4 min 46 s of a 30-minute suite; six still land in every phase of a run
TIMING_WORDS = ("seconds", "speedup")
COMMON = ["seed=4", "progress=false", "embeddings=false", "view.enabled=false"]


def _records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [{k: v for k, v in row.items() if k != "timings"} for row in rows]


def _metrics(path: Path) -> dict:
    graphs = json.loads(path.read_text())["graphs"]
    return {g: {k: v for k, v in e["metrics"].items() if not any(w in k for w in TIMING_WORDS)} for g, e in graphs.items()}


def _statuses(db: Path) -> list[str]:
    client = MlflowClient(f"sqlite:///{db}")
    experiment = client.get_experiment_by_name("dialectica")
    return [r.info.status for r in client.search_runs([experiment.experiment_id])] if experiment else []


def _kill_then_resume(args: list[str], cwd: Path, after_s: float) -> subprocess.CompletedProcess:
    proc = subprocess.Popen(args, cwd=cwd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=after_s)  # the seeded moment; a run that finished first is resumed all the same
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return subprocess.run([*args, "resume=true"], capture_output=True, text=True, cwd=cwd, timeout=900)


def _moments(args: list[str], cwd: Path, seed: int) -> list[float]:
    """The uninterrupted run's duration, spread into seeded moments (it decides only when to kill)."""
    t0 = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=cwd, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    duration = time.monotonic() - t0
    rng = random.Random(seed)
    return sorted(rng.uniform(0.1, 1.0) * duration for _ in range(MOMENTS))


def _killed_and_resumed(args: Callable[[str], list[str]], cwd: Path, seed: int) -> Iterator[tuple[str, Path]]:
    """Runs ``args("whole")`` uninterrupted, then for each seeded moment kills ``args("k<i>")`` there and resumes
    it; yields (when it was killed, its directory)."""
    for i, moment in enumerate(_moments(args("whole"), cwd, seed)):
        resumed = _kill_then_resume(args(f"k{i}"), cwd, moment)
        assert resumed.returncode == 0, f"killed at {moment:.2f}s: {resumed.stderr[-3000:]}"
        yield f"killed at {moment:.2f}s", cwd / f"k{i}"


@pytest.mark.slow  # twenty killed and resumed runs
def test_a_run_of_every_graph_killed_at_six_moments_resumes_to_the_uninterrupted_result(tmp_path):
    def args(name: str) -> list[str]:
        return [str(BIN), "episodes=2", *COMMON, f"hydra.run.dir={tmp_path / name}",
                f"tracking.uri=sqlite:///{tmp_path / name}.db"]

    whole = tmp_path / "whole"
    for when, out in _killed_and_resumed(args, tmp_path, seed=19):
        assert _records(out / "episodes.jsonl") == _records(whole / "episodes.jsonl"), when
        assert _metrics(out / "summary.json") == _metrics(whole / "summary.json"), when
        statuses = _statuses(out.with_suffix(".db"))
        assert "RUNNING" not in statuses and statuses.count("FINISHED") == len(_metrics(whole / "summary.json"))


@pytest.mark.slow  # twenty killed and resumed sweeps
def test_a_sweep_killed_at_six_moments_resumes_to_the_uninterrupted_result(tmp_path):
    def args(name: str) -> list[str]:
        return [str(BIN), "-m", "graph=socratic_panel", "graph.convergence_threshold=0.6,0.9", "episodes=6", *COMMON,
                f"hydra.sweep.dir={tmp_path / name}", f"tracking.uri=sqlite:///{tmp_path / name}.db"]

    whole = tmp_path / "whole"
    for when, out in _killed_and_resumed(args, tmp_path, seed=23):
        for job in ("0", "1"):
            assert _records(out / job / "episodes.jsonl") == _records(whole / job / "episodes.jsonl"), when
            assert _metrics(out / job / "summary.json") == _metrics(whole / job / "summary.json"), when
        assert (out / "comparison.csv").read_text() == (whole / "comparison.csv").read_text(), when
        statuses = _statuses(out.with_suffix(".db"))
        assert "RUNNING" not in statuses and statuses.count("FINISHED") == 3  # the parent and two jobs
