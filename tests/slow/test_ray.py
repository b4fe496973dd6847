"""hydra/launcher=ray runs a sweep on a Ray head started on loopback by the test, with the same
results as the sequential launcher and every job nested under the sweep's parent run."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from mlflow.tracking import MlflowClient

BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _sweep(tmp: Path, name: str, *launcher: str) -> None:
    proc = subprocess.run(
        [
            str(BIN / "dialectica"),
            "-m",
            *launcher,
            "graph=socratic_panel",
            "graph.convergence_threshold=0.6,0.9",
            "episodes=6",
            "progress=false",
            "embeddings=false",
            f"hydra.sweep.dir={tmp / name}",
            f"tracking.uri=sqlite:///{tmp / (name + '.db')}",
        ],
        capture_output=True,
        text=True,
        cwd=tmp,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture
def ray_head():
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # Ray's socket paths must stay short
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    subprocess.run(
        [
            str(BIN / "ray"),
            "start",
            "--head",
            "--node-ip-address=127.0.0.1",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={temp}",
        ],
        check=True,
        capture_output=True,
        env=env,
    )
    try:
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([str(BIN / "ray"), "stop", "--force"], capture_output=True, env=env)
        shutil.rmtree(temp, ignore_errors=True)


def test_ray_launcher_matches_sequential(tmp_path, ray_head):
    _sweep(tmp_path, "seq")
    _sweep(
        tmp_path,
        "ray",
        "hydra/launcher=ray",
        f"+hydra.launcher.ray.init.address={ray_head}",
        "+hydra.launcher.ray.init.object_store_memory=null",
    )
    columns = ["graph", "config", "episodes", "converged"]
    assert pd.read_csv(tmp_path / "seq" / "comparison.csv")[columns].equals(
        pd.read_csv(tmp_path / "ray" / "comparison.csv")[columns]
    )
    client = MlflowClient(f"sqlite:///{tmp_path / 'ray.db'}")
    runs = client.search_runs([client.get_experiment_by_name("dialectica").experiment_id])
    parent = next(r for r in runs if r.data.tags.get("sweep") == "true")
    assert sum(r.data.tags.get("mlflow.parentRunId") == parent.info.run_id for r in runs) == 2
    assert all(r.info.status == "FINISHED" for r in runs)
