"""Many writers, one store: runs and sweeps started at once against a new SQLite store all finish with every
run recorded (a tracking server taking runs from several processes: tests/slow/test_tracking_server.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mlflow.tracking import MlflowClient

BIN = Path(sys.executable).parent / "dialectica"
SMALL = ["graph=interview", "episodes=2", "progress=false", "embeddings=false", "view.enabled=false"]


def _start(cwd: Path, *args: str) -> subprocess.Popen:
    flags = [a for a in args if a.startswith("-")]
    command = [str(BIN), *flags, *SMALL, *(a for a in args if a not in flags)]
    return subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        _, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err[-3000:]
        assert "Traceback" not in err


def _runs(uri: str) -> list:
    client = MlflowClient(uri)
    experiment = client.get_experiment_by_name("dialectica")
    return client.search_runs([experiment.experiment_id])


def test_runs_and_sweeps_started_at_once_on_a_new_store_all_finish(tmp_path):
    uri = f"sqlite:///{tmp_path / 'new' / 'mlflow.db'}"  # neither the file nor its folder exists yet
    procs = [_start(tmp_path, f"hydra.run.dir={tmp_path / f'run{i}'}", f"tracking.uri={uri}") for i in range(4)]
    procs += [_start(tmp_path, "-m", "graph.budget=3,6", f"tracking.uri={uri}") for _ in range(2)]  # default dirs
    _finish(procs)

    runs = _runs(uri)
    assert len(runs) == 4 + 2 * 3  # four runs; two sweeps of a parent and two jobs each
    assert {r.info.status for r in runs} == {"FINISHED"}
    ids = {r.info.run_id for r in runs}
    for i in range(4):
        summary = json.loads((tmp_path / f"run{i}" / "summary.json").read_text())
        assert summary["graphs"]["interview"]["mlflow_run_id"] in ids
    sweeps = sorted((tmp_path / "results" / "multirun").iterdir())  # started in one second, yet two directories
    parents = {json.loads((sweep / "mlflow_parent.json").read_text())["run_id"] for sweep in sweeps}
    assert len(parents) == 2 and parents <= ids
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId")]
    assert {r.data.tags["mlflow.parentRunId"] for r in children} == parents and len(children) == 4


def test_a_run_directory_held_by_another_process_is_refused_in_one_line(tmp_path):
    import fcntl

    run = tmp_path / "run"
    run.mkdir()
    (run / "episodes.jsonl").write_text('{"kept": true}\n')
    with (run / "episodes.jsonl").open("a") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # as a run writing there does
        proc = _start(tmp_path, f"hydra.run.dir={run}", "tracking=none")
        _, err = proc.communicate(timeout=600)
    assert proc.returncode == 2
    (line,) = [line for line in err.splitlines() if line.strip()]
    assert f"another dialectica process is writing to {run}; choose another hydra.run.dir" in line
    assert (run / "episodes.jsonl").read_text() == '{"kept": true}\n'  # the other process's records untouched
