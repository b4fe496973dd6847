"""Every graph against surrogate participants and LLM roles on the real local model (the default preset
through llama.cpp), logged to MLflow; then the same command again, answered from the call cache.

Bounded by work, not by the clock: each graph's test runs one short episode with small token limits, so the
tier's cost is a fixed number of calls and tokens however busy the machine is. One test per graph, so that the
graphs spread over the workers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mlflow
import pytest

from dialectica.sim.config.discovery import builtin_names, load

BIN = Path(sys.executable).parent / "dialectica"
ROOT = Path(__file__).resolve().parents[2]
GRAPHS = builtin_names()
# Shorter dialogues and replies than the defaults: a fixed, small amount of generation per graph.
SHORT = [
    "++per_graph.committee.committee_size=5",
    "++per_graph.committee.max_rounds=1",
    "++per_graph.committee.evidence_top_k=5",
    "++per_graph.maieutic.max_turns=3",
    "++per_graph.socratic_panel.max_rounds=1",
    "++per_graph.socratic_panel.min_rounds=1",
    "++per_graph.interview.budget=4",
    "llm.max_tokens=48",
    "llm.retries=1",
]  # JSON replies keep their caps: a tribunal judge's and a panel expert's are sized to their schemas


def _run(tmp: Path, graph: str, name: str) -> tuple[list[dict], dict, str]:
    args = [
        str(BIN),
        f"graph={graph}",
        "participants=surrogate",
        "llm=llamacpp",
        "episodes=1",
        f"hydra.run.dir={tmp / name}",
        f"tracking.uri=sqlite:///{tmp / 'mlflow.db'}",
        f"llm.cache={tmp / 'llm.sqlite'}",
        f"llm.model_dir={ROOT / 'results' / 'cache' / 'models'}",
        f"embedding_cache={tmp / 'embeddings.sqlite'}",
        "view.enabled=false",
        *SHORT,
    ]
    proc = subprocess.run(args, capture_output=True, text=True, cwd=tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [json.loads(line) for line in (tmp / name / "episodes.jsonl").read_text().splitlines()]
    return records, json.loads((tmp / name / "summary.json").read_text())["graphs"][graph], proc.stderr


@pytest.mark.parametrize("graph", GRAPHS)
def test_every_role_is_played_by_the_llm_logged_to_mlflow_and_answered_from_the_cache_again(tmp_path, graph):
    records, summary, shown = _run(tmp_path, graph, "first")
    m = summary["metrics"]
    print(
        f"{graph:15s} calls {m['llm_calls_mean']:.0f}  tokens {m['tokens_total_mean']:.0f}  "
        f"parse_failures {m['parse_failures']:.0f}  empty {m['empty_replies']:.0f}  "
        f"episode {m['episode_seconds_p50']:.1f} s  llm_seconds_share {m['llm_seconds_share']:.3f}"
    )
    spec = load(graph)
    assert all(r["termination_reason"] != "error" for r in records), [r.get("error") for r in records]
    for r in records:
        assert r["usage"]["llm_calls"] > 0
        assert r["timings"]["cache_lookups"] == r["usage"]["llm_calls"]  # no scripted voice was left
        assert set(r["usage"]["calls_by_role"]) <= set(spec.roles)
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    run = mlflow.get_run(summary["mlflow_run_id"])
    logged = run.data.metrics
    for key in (
        "convergence_rate",
        "llm_calls_mean",
        "tokens_total_mean",
        "cache_hit_rate",
        "llm_seconds_share",
        "parse_failures",
    ):
        assert key in logged, key
    assert logged["cache_hit_rate"] < 0.9  # the first run is cold
    assert any(k.startswith("role/") and k.endswith("/seconds_mean") for k in logged)
    assert run.data.params["llm.backend"] == "llamacpp" and run.data.tags["participants"] == "surrogate"
    made = sum(r["usage"]["llm_calls"] - r["timings"]["cache_hits"] for r in records)
    assert f"model_calls={made}" in shown  # the bar counted the calls the model made, as they ended

    again, summary_again, shown_again = _run(tmp_path, graph, "second")
    assert summary_again["metrics"]["cache_hit_rate"] == 1.0
    assert sum(r["timings"]["llm_seconds"] for r in again) == 0  # no call reached the model
    assert "model_calls=" not in shown_again
    strip = lambda rs: [{k: v for k, v in r.items() if k != "timings"} for r in rs]  # noqa: E731
    assert strip(records) == strip(again)  # same seed and config, same records
