"""SIGKILL where a run of every graph and a sweep can stop (start-up, mid-episodes, outputs, an open MLflow
run, before the summary; a sweep's second job and its comparison): each run resumed with ``resume=true`` ends
with the records, metrics and comparison of the uninterrupted one, and leaves no MLflow run RUNNING. The kill
lands where the run itself gets to (``tests/inject.py``), so a loaded machine moves nothing."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from mlflow.tracking import MlflowClient

from tests.inject import At, run_at

BIN = Path(sys.executable).parent / "dialectica"
TIMING_WORDS = ("seconds", "speedup")
COMMON = ["seed=4", "progress=false", "embeddings=false", "view.enabled=false"]
SIM = "dialectica.sim"


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


def _killed_and_resumed(args: Callable[[str], list[str]], cwd: Path, points: list[At]) -> Iterator[tuple[str, Path]]:
    """Runs ``args("whole")`` uninterrupted, then for each point kills ``args("k<i>")`` there and resumes it;
    yields (where it was killed, its directory)."""
    whole = subprocess.run(args("whole"), capture_output=True, text=True, cwd=cwd)
    assert whole.returncode == 0, whole.stderr[-3000:]
    for i, at in enumerate(points):
        killed = run_at(at, args(f"k{i}")[1:], cwd, signal.SIGKILL)
        assert killed.returncode == -signal.SIGKILL, f"the run never got {at}: {killed.stderr[-2000:]}"
        resumed = subprocess.run([*args(f"k{i}"), "resume=true"], capture_output=True, text=True, cwd=cwd)
        assert resumed.returncode == 0, f"killed {at}: {resumed.stderr[-3000:]}"
        yield f"killed {at}", cwd / f"k{i}"


# graph=all plays committee, interview, maieutic, socratic_panel, tribunal: two episodes each
EVERY_GRAPH = [
    At(f"{SIM}.engine.checkpoint", "record", 1),  # start-up: nothing written yet
    At(f"{SIM}.records", "append", 2),  # the first graph's second episode played, not written
    At(f"{SIM}.engine.batch", "_pages", 2),  # the second graph's episodes and metrics done, no pages or config.json
    At(f"{SIM}.tracking.runs", "MlflowRun.metrics", 3),  # the third graph's MLflow run open, its params logged
    At(f"{SIM}.engine.batch", "_write_atomic", 1),  # every graph finished and logged, the run's summary not written
]


def test_a_run_of_every_graph_killed_at_each_point_resumes_to_the_uninterrupted_result(tmp_path):
    def args(name: str) -> list[str]:
        return [
            str(BIN),
            "episodes=2",
            *COMMON,
            f"hydra.run.dir={tmp_path / name}",
            f"tracking.uri=sqlite:///{tmp_path / name}.db",
        ]

    whole = tmp_path / "whole"
    for when, out in _killed_and_resumed(args, tmp_path, EVERY_GRAPH):
        assert _records(out / "episodes.jsonl") == _records(whole / "episodes.jsonl"), when
        assert _metrics(out / "summary.json") == _metrics(whole / "summary.json"), when
        statuses = _statuses(out.with_suffix(".db"))
        assert "RUNNING" not in statuses and statuses.count("FINISHED") == len(_metrics(whole / "summary.json")), when


# two jobs of six episodes, one after the other in this process; what a single run shares with a job (a kill
# mid-episodes or mid-outputs) is the matrix above's
SWEEP = [
    At(f"{SIM}.tracking.runs", "MlflowRun.metrics", 1),  # the first job's MLflow run open
    At(f"{SIM}.engine.checkpoint", "record", 2),  # the second job starting
    At(f"{SIM}.records", "append", 7),  # the second job's first episode played, not written
    At(f"{SIM}.tracking.sweep", "markdown", 1),  # both jobs done, comparison.csv written, the parent run not finished
]


def test_a_sweep_killed_at_each_point_resumes_to_the_uninterrupted_result(tmp_path):
    def args(name: str) -> list[str]:
        return [
            str(BIN),
            "-m",
            "graph=socratic_panel",
            "graph.convergence_threshold=0.6,0.9",
            "episodes=6",
            *COMMON,
            f"hydra.sweep.dir={tmp_path / name}",
            f"tracking.uri=sqlite:///{tmp_path / name}.db",
        ]

    whole = tmp_path / "whole"
    for when, out in _killed_and_resumed(args, tmp_path, SWEEP):
        for job in ("0", "1"):
            assert _records(out / job / "episodes.jsonl") == _records(whole / job / "episodes.jsonl"), when
            assert _metrics(out / job / "summary.json") == _metrics(whole / job / "summary.json"), when
        assert (out / "comparison.csv").read_text() == (whole / "comparison.csv").read_text(), when
        statuses = _statuses(out.with_suffix(".db"))
        assert "RUNNING" not in statuses and statuses.count("FINISHED") == 3, when  # the parent and two jobs
