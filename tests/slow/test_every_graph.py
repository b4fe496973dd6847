"""``dialectica`` with no graph argument: every registered graph, one episodes file (a long run)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent / "dialectica"


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            str(BIN),
            f"hydra.run.dir={tmp_path / 'run'}",
            f"tracking.uri=sqlite:///{tmp_path / 'ml.db'}",
            "progress=false",
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_no_graph_argument_runs_every_registered_graph(tmp_path):
    from dialectica.sim.config.discovery import load, names

    proc = _run(tmp_path, "episodes=2", "tracking=none")
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert sorted(summary["graphs"]) == names()
    assert all(entry["mlflow_run_id"] is None for entry in summary["graphs"].values())
    assert not (tmp_path / "ml.db").exists()
    assert "convergence_rate" in proc.stdout  # the summary table
    # one episodes.jsonl for the whole run: every graph's episodes, each once
    records = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    assert sorted((r["graph"], r["episode"]) for r in records) == [(g, i) for g in names() for i in range(2)]
    for r in records:  # embedding agreement only where a round has several participants' answers
        measured = "embedding_agreement" in r["metrics"]
        assert measured == (load(r["graph"]).agreement and r["termination_reason"] != "error"), r["graph"]
