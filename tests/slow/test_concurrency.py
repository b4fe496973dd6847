"""Episodes in flight against a real OpenAI-compatible server on loopback (``latency_server``): every graph,
every role on the server; ``max_concurrency`` changes timings only, a server shedding load with 429s fails
no episode, and resume and the call cache keep working."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dialectica.sim.dev.latency_server import serving

BIN = Path(sys.executable).parent / "dialectica"
EPISODES = 3
SHORT = ("++per_graph.committee.max_rounds=2", "++per_graph.maieutic.max_turns=4")


@pytest.fixture(scope="module")
def url():
    with serving(latency_s=0.02) as base:
        yield base


@pytest.fixture(scope="module")
def busy_url():
    with serving(latency_s=0.02, busy_every=4) as base:
        yield base


def _run(tmp: Path, name: str, base_url: str, *extra: str) -> Path:
    out = tmp / name
    proc = subprocess.run(
        [
            str(BIN),
            "graph=all",
            "participants=surrogate",
            "llm=openai",
            f"llm.base_url={base_url}",
            "llm.model=latency",
            f"episodes={EPISODES}",
            "seed=5",
            "progress=false",
            "tracking=none",
            "view.enabled=false",
            "llm.backoff_s=0.01",
            f"hydra.run.dir={out}",
            f"embedding_cache={tmp / 'embeddings.sqlite'}",
            *SHORT,
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out / "episodes.jsonl"


def _records(path: Path) -> list[dict]:
    """What a record says, less how long things took on this machine this time."""
    return [{k: v for k, v in json.loads(line).items() if k != "timings"} for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def sequential(url, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sequential")
    return _records(_run(tmp, "one", url, "max_concurrency=1", "llm.cache=null"))


def test_episodes_in_flight_write_what_one_at_a_time_writes(sequential, url, tmp_path):
    parallel = _records(_run(tmp_path, "many", url, "max_concurrency=6", "llm.cache=null"))
    assert [(r["graph"], r["episode"]) for r in parallel] == [(r["graph"], r["episode"]) for r in sequential]
    assert parallel == sequential
    assert not [r for r in sequential if r["termination_reason"] == "error"], "every episode ran to an end"
    calls: dict[str, int] = {}
    for r in sequential:
        calls[r["graph"]] = calls.get(r["graph"], 0) + r["usage"]["llm_calls"]
    assert len(calls) == 5 and min(calls.values()) > 0, calls


def test_a_server_shedding_load_fails_no_episode(sequential, busy_url, tmp_path):
    path = _run(tmp_path, "busy", busy_url, "max_concurrency=4", "llm.cache=null")
    assert _records(path) == sequential  # every 429 was waited out; none used up a retry or changed a seed
    waited = sum(json.loads(line)["timings"]["rate_limited"] for line in path.read_text().splitlines())
    assert waited > 0


def test_resume_and_the_call_cache_under_concurrency(sequential, url, tmp_path):
    cache = f"llm.cache={tmp_path / 'llm.sqlite'}"
    path = _run(tmp_path, "cut", url, "max_concurrency=4", cache)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:7]) + lines[7][:40])  # killed mid-write, 7 episodes in (two graphs and a third)
    (path.parent / "summary.json").unlink()  # written last: a killed run has none
    _run(tmp_path, "cut", url, "max_concurrency=4", "resume=true", cache)
    assert _records(path) == sequential
    again = _run(tmp_path, "again", url, "max_concurrency=4", cache)
    assert _records(again) == sequential
    timings = [json.loads(line)["timings"] for line in again.read_text().splitlines()]
    assert sum(t["cache_hits"] for t in timings) == sum(t["cache_lookups"] for t in timings) > 0
