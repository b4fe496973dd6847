"""No secret on disk: canary credentials, planted in the environment, the config and a server's replies,
reach no file, no MLflow row and no console line.

A tiny OpenAI-compatible server on loopback echoes back what a careless server might: the request's
``Authorization`` header, the URL it was called at (with its credentials) and a key from the run's
environment, in successful replies (so they reach transcripts and the call cache) and in 500, 401 and
400 error bodies (so they reach tracebacks). A single run and a two-job sweep go through it, then every
byte under the test's folder and the captured output is searched for each canary.
"""

from __future__ import annotations

import base64
import http.server
import itertools
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
import yaml
from mlflow.tracking import MlflowClient

BIN = Path(sys.executable).parent / "dialectica"
KEY = "sk-canary-key-5f3a9c1e"  # in DIALECTICA_CANARY_KEY, which llm.api_key_env names
ENV_KEY = "sk-canary-env-8d1e7b2a"  # in OPENAI_API_KEY: a secret by its variable's name
USER, PASSWORD = "canaryuser", "CANARYPASS123"  # in llm.base_url, sent by the client as HTTP Basic auth
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
CANARIES = (KEY, ENV_KEY, PASSWORD, f"{USER}:{PASSWORD}", BASIC)


class CanaryServer(http.server.ThreadingHTTPServer):
    """``/v1/models`` lists one model; ``/v1/chat/completions`` echoes the caller's credentials, in a reply
    (``mode = "reply"``) or in an error body with status 500, 401 and 400 in turn (``mode = "error"``)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = "reply"
        self.counts: Counter[str] = Counter()
        self._statuses = itertools.cycle((500, 401, 400))
        self._lock = threading.Lock()

    def next_status(self) -> int:
        with self._lock:
            return next(self._statuses)


class _Handler(http.server.BaseHTTPRequestHandler):
    server: CanaryServer

    def _send(self, status: int, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.server.counts["models"] += 1
        self._send(200, {"object": "list", "data": [{"id": "local", "object": "model", "owned_by": "canary"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        auth = self.headers.get("Authorization", "")
        userinfo = base64.b64decode(auth.removeprefix("Basic ")).decode() + "@" if auth.startswith("Basic ") else ""
        echo = f"Authorization: {auth}; url: http://{userinfo}{self.headers['Host']}{self.path}; env: {ENV_KEY}"
        if self.server.mode == "reply":
            self.server.counts["reply"] += 1
            self._send(
                200,
                {
                    "id": "c",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "local",
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": f"I heard {echo}."},
                        }
                    ],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8},
                },
            )
            return
        status = self.server.next_status()
        self.server.counts[str(status)] += 1
        self._send(status, {"error": {"message": f"rejected {echo}", "type": "canary", "code": status}})

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server():
    srv = CanaryServer()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _cli(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DIALECTICA_CANARY_KEY": KEY, "OPENAI_API_KEY": ENV_KEY}
    common = (
        "participants=surrogate",
        "llm=openai",
        "llm.api_key_env=DIALECTICA_CANARY_KEY",
        "llm.retries=1",
        "llm.backoff_s=0",
        "max_error_rate=1",
        "progress=false",
        f"tracking.uri=sqlite:///{tmp / 'ml.db'}",
    )
    proc = subprocess.run([str(BIN), *args, *common], capture_output=True, text=True, cwd=tmp, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _records(folder: Path) -> list[dict]:
    return [json.loads(line) for path in sorted(folder.rglob("episodes.jsonl")) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def canary_runs(server, tmp_path_factory):
    """A single interview run whose replies echo the key, then a two-job panel sweep (credentials in the URL)
    whose every call fails with them in the error body."""
    tmp = tmp_path_factory.mktemp("canary")
    port = server.server_address[1]
    server.mode = "reply"
    single = _cli(
        tmp, f"hydra.run.dir={tmp / 'run'}", "graph=interview", "episodes=2", f"llm.base_url=http://127.0.0.1:{port}/v1"
    )
    server.mode = "error"  # the panel's moderator raises once its retry fails too: the episode is an error
    sweep = _cli(
        tmp,
        "-m",
        f"hydra.sweep.dir={tmp / 'sweep'}",
        "graph=socratic_panel",
        "graph.retry_backoff_s=0",
        "graph.convergence_threshold=0.6,0.9",
        "episodes=1",
        "embeddings=false",
        f"llm.base_url=http://{USER}:{PASSWORD}@127.0.0.1:{port}/v1",
    )
    return tmp, [single, sweep]


def test_no_canary_reaches_any_file_or_the_console(canary_runs, server):
    tmp, procs = canary_runs
    files = [p for p in tmp.rglob("*") if p.is_file()]
    assert {
        "episodes.jsonl",
        "config.json",
        "fingerprint.json",
        "summary.json",
        "ml.db",
        "multirun.yaml",
        "llm.sqlite",
        "index.html",
    } <= {p.name for p in files}
    assert any(p.suffix == ".log" for p in files) and any("mlartifacts" in p.parts for p in files)
    for path in files:
        data = path.read_bytes()
        for canary in CANARIES:
            assert canary.encode() not in data, (canary, path)
    for proc in procs:
        for canary in CANARIES:
            assert canary not in proc.stdout and canary not in proc.stderr, canary
    # the run met the server: replies in the single run, each error status in the sweep
    assert server.counts["models"] >= 2 and server.counts["reply"] > 0  # one probe per process
    assert all(server.counts[status] > 0 for status in ("500", "401", "400")), server.counts


def test_the_echoes_were_written_scrubbed(canary_runs):
    tmp, (_, sweep) = canary_runs
    replies = [turn["text"] for r in _records(tmp / "run") for turn in r["transcript"] if "I heard" in turn["text"]]
    assert replies and all("Authorization: Bearer ***; url: http://127.0.0.1" in t and "env: ***" in t for t in replies)
    errors = [r["error"] for r in _records(tmp / "sweep")]
    assert len(errors) == 2 and all(e and "Authorization: Basic ***; url: http://***@127.0.0.1" in e for e in errors)
    client = MlflowClient(f"sqlite:///{tmp / 'ml.db'}")
    runs = client.search_runs([client.get_experiment_by_name("dialectica").experiment_id])
    parent = next(r for r in runs if r.data.tags.get("sweep") == "true")
    assert "llm.base_url=http://***@127.0.0.1" in parent.data.tags["overrides"]
    jobs = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    assert len(jobs) == 2 and all(r.data.params["llm.base_url"].startswith("http://***@127.0.0.1") for r in jobs)
    hydra_copy = yaml.safe_load((tmp / "sweep" / "multirun.yaml").read_text())  # still YAML, scrubbed as values
    assert hydra_copy["llm"]["base_url"].startswith("http://***@")
    assert "HTTP Request: POST http://***@127.0.0.1" in (tmp / "sweep" / "0" / "run.log").read_text()
    console = sweep.stdout + sweep.stderr  # Hydra's launcher lists each job's overrides (``http\://``: its escape)
    assert "#1 : " in console and "llm.base_url=http\\://***@127.0.0.1" in console
