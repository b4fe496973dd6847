"""A graph used as it is, with an LLM user and an LLM judge on the real local model; and getting started's example
with an LLM customer, run as written.

Bounded by work: a few short episodes (at most ``max_turns`` user turns, 48 tokens a reply), every call cached,
so a second identical run asks the model nothing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "support_bot"
MODELS = f"llm.model_dir={ROOT / 'results' / 'cache' / 'models'}"  # the assembled model, shared with the LLM tier


def _cli(tmp: Path, name: str, *extra: str, tracking: str = "tracking=none") -> subprocess.CompletedProcess[str]:
    args = [
        sys.executable,
        "-m",
        "dialectica",
        "graph=support_bot.graph:graph",
        f"graph.scenarios={EXAMPLE / 'scenarios.yaml'}",
        "participants=surrogate",
        "llm=llamacpp",
        "graph.judge=llm",
        "graph.metrics=[role_adherence]",  # a ready rubric beside the judge, on the same model
        "scenario=[recent_flight,old_flight]",
        "episodes=2",
        "graph.max_turns=3",
        "llm.max_tokens=48",
        f"llm.cache={tmp / 'llm.sqlite'}",
        MODELS,
        tracking,
        "progress=false",
        f"hydra.run.dir={tmp / name}",
        *extra,
    ]
    env = {**os.environ, "PYTHONPATH": str(EXAMPLE / "src")}
    return subprocess.run(args, capture_output=True, text=True, cwd=tmp, env=env, check=False)


def test_an_llm_customer_and_an_llm_judge_on_the_local_model(tmp_path: Path):
    store = f"sqlite:///{tmp_path / 'mlflow.db'}"
    proc = _cli(tmp_path, "first", tracking=f"tracking.uri={store}")  # traces=auto: every episode, a model is called
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [json.loads(line) for line in (tmp_path / "first" / "episodes.jsonl").read_text().splitlines()]
    assert [r["termination_reason"] != "error" for r in records] == [True, True], records[0].get("error")
    for record in records:
        said = [t for t in record["transcript"] if t["role"] == "user"]
        assert said and all(t["text"].strip() for t in said)  # the model spoke as the customer
        assert record["usage"]["calls_by_role"]["user"] >= 1 and record["usage"]["calls_by_role"]["judge"] == 2
        assert record["artifacts"].get("judge")  # the LLM judge's reason
        assert record["metrics"]["rubric/role_adherence"] in (0.0, 1.0) and "rubric/role_adherence" in record["artifacts"]
    _assert_traced(store, tmp_path / "first", records)
    again = _cli(tmp_path, "second")
    assert again.returncode == 0, again.stderr[-3000:]
    replay = [json.loads(line) for line in (tmp_path / "second" / "episodes.jsonl").read_text().splitlines()]
    assert [r["transcript"] for r in replay] == [r["transcript"] for r in records]  # same seed, same records
    assert all(r["timings"]["cache_hits"] == r["timings"]["cache_lookups"] > 0 for r in replay)


def test_getting_starteds_llm_customer_example_runs_as_written(tmp_path: Path):
    page = (ROOT / "docs" / "getting-started.md").read_text()  # the README's example is the scripted one before it
    section = page.split("### With a model playing the customer", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None and "dialectica.LLMUser()" in code.group(1)
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # its paths are the repository's
    script = (
        f"import sys; sys.path.insert(0, {str(EXAMPLE / 'src')!r})\n"
        f"import dialectica\n{code.group(1)}\n"
        "assert ev.metrics['episodes'] == 10 and ev.metrics['error_rate'] < 0.5, ev.metrics\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("Evaluation(support_bot.graph.graph: 10 episodes, convergence_rate"), proc.stdout[:300]
    assert (tmp_path / "results" / "mlflow.db").exists()  # the project store, beside the run


def test_a_factorys_model_is_replaced_by_role_through_llm(tmp_path: Path):
    script = f"""
import json, sys
sys.path.insert(0, {str(ROOT)!r})
import dialectica
from tests.unit.test_adapter import bot_factory
ev = dialectica.evaluate(bot_factory, scenarios=[{{"name": "s", "turns": ["Hello, who are you?"]}}], episodes=1,
                         llm="llamacpp", overrides=["llm.max_tokens=24", {MODELS!r}], tracking="none", progress=False,
                         out_dir="run")
record = json.loads(open("run/episodes.jsonl").readline())
print(json.dumps([record["usage"]["calls_by_role"], [t["text"] for t in record["transcript"]]]))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    calls, texts = json.loads(proc.stdout.strip().splitlines()[-1])
    assert calls == {"model": 1} and texts[1] not in ("How can I help?", "Which order number?")  # the local model spoke


def test_evaluate_with_an_llm_user_and_an_llm_judge(tmp_path: Path):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    script = f"""
import json, sys
sys.path.insert(0, {str(EXAMPLE / "src")!r})
import dialectica
from support_bot.graph import graph
ev = dialectica.evaluate(graph, scenarios="examples/support_bot/scenarios.yaml", user=dialectica.LLMUser(),
                         judge=dialectica.LLMJudge(), episodes=2, max_turns=2, tracking="none", progress=False,
                         overrides=["llm.max_tokens=48", {MODELS!r}], out_dir="run")
print(json.dumps([json.loads(line) for line in open("run/episodes.jsonl")]))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [r["termination_reason"] != "error" for r in records] == [True, True], records[0].get("error")
    assert all(r["usage"]["calls_by_role"].get("judge") == 1 and r["artifacts"].get("judge") for r in records)


def _assert_traced(store: str, run: Path, records: list[dict]) -> None:
    """Each episode is one MLflow trace: the model's calls as chat-model spans with their tokens, the LLM judge's
    verdict and reason as feedback from an LLM judge."""
    from mlflow.tracing.client import TracingClient
    from mlflow.tracking import MlflowClient

    run_id = json.loads((run / "summary.json").read_text())["graphs"]["support_bot.graph.graph"]["mlflow_run_id"]
    experiment = MlflowClient(store).get_run(run_id).info.experiment_id
    traces = {
        int(t.info.tags["dialectica.episode"]): t
        for t in TracingClient(store).search_traces(locations=[experiment], run_id=run_id)
    }
    assert sorted(traces) == [0, 1]
    for record in records:
        trace = traces[record["episode"]]
        calls = [s for s in trace.data.spans if s.span_type == "CHAT_MODEL"]
        assert len(calls) == record["usage"]["llm_calls"]
        assert sum(s.attributes["mlflow.chat.tokenUsage"]["total_tokens"] for s in calls) == record["usage"]["tokens_total"]
        judge = next(a for a in trace.info.assessments if a.name == "dialectica/judge")
        assert judge.source.source_type == "LLM_JUDGE" and judge.rationale == record["artifacts"]["judge"]
        assert judge.value is bool(record["metrics"]["judge_passed"])
