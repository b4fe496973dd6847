"""A tracking server (``mlflow server`` on loopback) takes runs from several processes at once."""

from __future__ import annotations

import sys
import urllib.request
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests import serving
from tests.integration.test_many_writers import _finish, _runs, _start


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


@pytest.fixture
def mlflow_server(tmp_path):
    port = serving.free_port()
    url = f"http://127.0.0.1:{port}"
    server = serving.start(
        [
            str(Path(sys.executable).parent / "mlflow"),
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--backend-store-uri",
            f"sqlite:///{tmp_path / 'server.db'}",
            "--artifacts-destination",
            str(tmp_path / "server-artifacts"),
            "--workers",
            "1",
        ],
        cwd=tmp_path,
    )
    try:
        assert _healthy(url)
        yield url
    finally:
        server.terminate()
        server.wait()


def test_a_tracking_server_takes_runs_from_several_processes(tmp_path, mlflow_server):
    procs = [_start(tmp_path, f"hydra.run.dir={tmp_path / f'run{i}'}", f"tracking.uri={mlflow_server}") for i in range(3)]
    _finish(procs)
    runs = _runs(mlflow_server)
    assert len(runs) == 3 and {r.info.status for r in runs} == {"FINISHED"}
    client = MlflowClient(mlflow_server)
    for run in runs:
        assert "summary.json" in {a.path for a in client.list_artifacts(run.info.run_id)}
    assert not list(tmp_path.glob("*.db.lock"))  # a server needs no file lock
