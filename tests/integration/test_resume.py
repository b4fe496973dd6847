"""Resume: SIGTERM ends a run as KILLED keeping its episodes; another config is refused; a resumed graph=all
keeps the graphs a killed run finished. (SIGKILL at six moments: test_kill_resume.py.)"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from mlflow.tracking import MlflowClient

from tests.inject import At, run_at

BIN = Path(sys.executable).parent / "dialectica"
TIMING_WORDS = ("seconds", "speedup")


def _statuses(db: Path) -> list[str]:
    client = MlflowClient(f"sqlite:///{db}")
    experiment = client.get_experiment_by_name("dialectica")
    return [r.info.status for r in client.search_runs([experiment.experiment_id])]


def test_sigterm_ends_the_run_killed_and_keeps_finished_episodes(tmp_path):
    args = [
        "graph=socratic_panel",
        "episodes=20",
        "progress=false",
        "embeddings=false",
        f"hydra.run.dir={tmp_path / 'run'}",
        f"tracking.uri=sqlite:///{tmp_path / 'ml.db'}",
    ]
    # SIGTERM as the fourth record is about to be written
    proc = run_at(At("dialectica.sim.records", "append", 4), args, tmp_path, signal.SIGTERM)
    assert proc.returncode == 143 and not (tmp_path / "run" / "summary.json").exists(), proc.stderr[-2000:]
    assert _statuses(tmp_path / "ml.db") == ["KILLED"]
    assert 3 <= len((tmp_path / "run" / "episodes.jsonl").read_text().splitlines()) <= 4


def test_resume_with_another_config_exits_2_naming_the_keys_and_leaves_the_directory(tmp_path):
    run = [
        str(BIN),
        "graph=interview",
        "episodes=3",
        "seed=1",
        "tracking=none",
        "progress=false",
        f"hydra.run.dir={tmp_path / 'run'}",
    ]
    assert subprocess.run(run, capture_output=True, cwd=tmp_path).returncode == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir() if p.is_file()}

    proc = subprocess.run([*run, "seed=2", "graph.budget=4", "resume=true"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "graph.budget (10 -> 4), seed (1 -> 2)" in line and "Traceback" not in proc.stderr
    after = {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir() if p.is_file() and p.name != "run.log"}
    assert after == {k: v for k, v in before.items() if k != "run.log"}

    # keys that cannot change results may differ
    same = subprocess.run(
        [*run, "progress=true", "max_concurrency=2", "view.enabled=false", "resume=true"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert same.returncode == 0 and "already finished" in same.stdout, same.stderr[-2000:]


def test_a_sweep_resumed_with_another_config_is_refused_before_it_touches_the_sweep_or_its_parent(tmp_path):
    sweep = [str(BIN), "-m", "graph=interview", "graph.budget=4,6", "episodes=3", "seed=0", "progress=false",
             "view.enabled=false", f"hydra.sweep.dir={tmp_path / 'sw'}",
             f"tracking.uri=sqlite:///{tmp_path / 'ml.db'}"]  # fmt: skip
    assert subprocess.run(sweep, capture_output=True, cwd=tmp_path).returncode == 0
    files = lambda: {p: p.read_bytes() for p in (tmp_path / "sw").rglob("*") if p.is_file() and p.name != "run.log"}  # noqa: E731
    before, statuses = files(), _statuses(tmp_path / "ml.db")
    proc = subprocess.run([*sweep, "seed=1", "resume=true"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "sweep job 0 (" in line and "made with another config: seed (0 -> 1)" in line
    assert files() == before and _statuses(tmp_path / "ml.db") == statuses == ["FINISHED"] * 3  # multirun.yaml too
    again = subprocess.run([*sweep, "resume=true"], capture_output=True, text=True, cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]


def test_a_run_into_a_directory_that_holds_one_is_refused_and_leaves_it(tmp_path):
    run = [str(BIN), "graph=interview", "episodes=3", "tracking=none", "progress=false", f"hydra.run.dir={tmp_path / 'run'}"]
    assert subprocess.run(run, capture_output=True, cwd=tmp_path).returncode == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir() if p.is_file() and p.name != "run.log"}

    proc = subprocess.run([*run, "episodes=2", "seed=5"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    (line,) = proc.stderr.strip().splitlines()
    assert "already holds a finished run (3 episodes); add resume=true to return it" in line
    after = {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir() if p.is_file() and p.name != "run.log"}
    assert after == before


def test_resumed_graph_all_keeps_the_graphs_a_killed_run_finished(tmp_path):
    run = [
        str(BIN),
        "episodes=2",
        "seed=5",
        "progress=false",
        "embeddings=false",
        "view.enabled=false",
        f"hydra.run.dir={tmp_path / 'run'}",
        f"tracking.uri=sqlite:///{tmp_path / 'ml.db'}",
    ]
    first = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    out = tmp_path / "run"
    whole = json.loads((out / "summary.json").read_text())["graphs"]
    *finished, last = list(whole)
    # as if killed while the last graph ran: no run summary, the last graph unfinished, one of its episodes lost
    (out / "summary.json").unlink()
    (out / last / "summary.json").unlink()
    lines = (out / "episodes.jsonl").read_text().splitlines()
    kept = [line for line in lines if not (json.loads(line)["graph"] == last and json.loads(line)["episode"] == 1)]
    (out / "episodes.jsonl").write_text("\n".join(kept) + "\n")

    resumed = subprocess.run([*run, "resume=true"], capture_output=True, text=True, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    for name in finished:
        assert f"{name}: finished before, kept (resume=true)" in resumed.stdout
    assert f"{last}: finished before" not in resumed.stdout
    again = json.loads((out / "summary.json").read_text())["graphs"]
    for name in whole:
        keep = {k: v for k, v in whole[name]["metrics"].items() if not any(w in k for w in TIMING_WORDS)}
        assert {k: v for k, v in again[name]["metrics"].items() if not any(w in k for w in TIMING_WORDS)} == keep
    assert [again[name]["mlflow_run_id"] for name in finished] == [whole[name]["mlflow_run_id"] for name in finished]
    client = MlflowClient(f"sqlite:///{tmp_path / 'ml.db'}")
    runs = client.search_runs([client.get_experiment_by_name("dialectica").experiment_id])
    by_graph = {name: sum(r.data.tags["graph"] == name for r in runs) for name in whole}
    assert by_graph == {**dict.fromkeys(finished, 1), last: 2}  # only the unfinished graph ran again
