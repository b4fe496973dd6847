"""The support-bot example (examples/support_bot): an unmodified LangGraph graph run from the command line
with a user and a judge named by import strings, swept over one of its context knobs, and its own tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support_bot"
NAME = "support_bot.graph.graph"
ARGS = (
    "graph=support_bot.graph:graph",
    f"graph.scenarios={EXAMPLE / 'scenarios.yaml'}",
    "graph.user=support_bot.evaluation:customer",
    "graph.judge=support_bot.evaluation:refunded",
    "episodes=8",
    "tracking=none",
    "progress=false",
)


def _dialectica(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(EXAMPLE / "src")}
    return subprocess.run(
        [sys.executable, "-m", "dialectica", *args], capture_output=True, text=True, cwd=cwd, env=env, check=False
    )


def _metrics(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())["graphs"][NAME]["metrics"]


def test_the_example_runs_from_the_command_line(tmp_path: Path):
    proc = _dialectica(tmp_path, *ARGS, f"hydra.run.dir={tmp_path / 'run'}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    metrics = _metrics(tmp_path / "run")
    assert metrics["episodes"] == 8 and 0 < metrics["convergence_rate"] <= 1
    assert metrics["scenario/old_flight/convergence_rate"] == 1.0  # refused, as the scenario expects


def test_a_sweep_over_the_refund_window(tmp_path: Path):
    sweep = tmp_path / "sweep"
    proc = _dialectica(tmp_path, "-m", *ARGS, "graph.refund_window_days=1,30", f"hydra.sweep.dir={sweep}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    narrow, wide = (_metrics(sweep / str(job)) for job in (0, 1))
    assert narrow["convergence_rate"] < wide["convergence_rate"]
    assert narrow["scenario/recent_flight/convergence_rate"] < wide["scenario/recent_flight/convergence_rate"]


def test_the_examples_own_tests_pass(tmp_path: Path):
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "tests")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
