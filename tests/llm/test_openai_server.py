"""``llm=openai`` for real: llama-cpp-python's own OpenAI-compatible server, started on loopback by the
test, serving the default preset's GGUF, with an API key it checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from dialectica.graphs.tribunal.bench import opinions_schema
from dialectica.sim.authoring.structured import ask, read_json
from dialectica.sim.llm.casting import Voices
from dialectica.sim.llm.gguf import DEFAULT_PRESET, assemble
from dialectica.sim.llm.settings import LLMSettings
from tests import serving

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-dialectica-test-0123456789"
BIN = Path(sys.executable).parent / "dialectica"


@pytest.fixture(scope="module")
def server():
    model = assemble(DEFAULT_PRESET, ROOT / "results" / "cache" / "models")
    port = serving.free_port()
    proc = serving.start(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--n_threads",
            str(LLMSettings().threads()),
            "--api_key",
            KEY,
            "--model_alias",
            "local",
        ],
    )
    url = f"http://127.0.0.1:{port}/v1"
    yield url
    proc.terminate()
    proc.wait()


def _settings(url: str, **extra) -> LLMSettings:
    return LLMSettings(backend="openai", base_url=url, model="local", api_key_env="DIALECTICA_TEST_KEY", **extra)


def test_structured_reply_through_the_server_follows_the_schema(server, monkeypatch):
    monkeypatch.setenv("DIALECTICA_TEST_KEY", KEY)
    criteria = [{"id": "c1"}, {"id": "c2"}]
    model = Voices(_settings(server, json_max_tokens=200)).speaker("prosecutor", "system", 3, None)
    text = ask(
        model,
        [HumanMessage("Score criteria c1 (secrets handling) and c2 (tests) of a small web service.")],
        opinions_schema(criteria),
    )
    data = read_json(text, opinions_schema(criteria))
    assert data is not None, text
    assert sorted(o["criterion"] for o in data["opinions"]) == ["c1", "c2"]


def test_a_wrong_key_is_refused_in_one_line(server, monkeypatch):
    from dialectica.sim.authoring.params import ConfigError

    monkeypatch.setenv("DIALECTICA_TEST_KEY", "sk-wrong")
    with pytest.raises(ConfigError, match="refused the key in \\$DIALECTICA_TEST_KEY"):
        Voices(_settings(server)).check([("interviewer", "system")])


def test_surrogate_interview_runs_against_the_server_and_the_key_goes_nowhere(server, tmp_path):
    env = {**os.environ, "DIALECTICA_TEST_KEY": KEY}
    proc = subprocess.run(
        [
            str(BIN),
            "graph=interview",
            "participants=surrogate",
            "llm=openai",
            f"llm.base_url={server}",
            "llm.model=local",
            "llm.api_key_env=DIALECTICA_TEST_KEY",
            "episodes=1",
            "graph.budget=4",
            "progress=false",
            f"hydra.run.dir={tmp_path / 'run'}",
            f"tracking.uri=sqlite:///{tmp_path / 'ml.db'}",
            f"llm.cache={tmp_path / 'llm.sqlite'}",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads((tmp_path / "run" / "episodes.jsonl").read_text().splitlines()[0])
    assert record["termination_reason"] != "error", record.get("error")
    assert record["usage"]["calls_by_role"]["interviewee"] >= 4
    assert record["timings"]["cache_lookups"] == record["usage"]["llm_calls"]
    outputs = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "ml.db" for p in outputs)
    for path in outputs:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in proc.stdout + proc.stderr
