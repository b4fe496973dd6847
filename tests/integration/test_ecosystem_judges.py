"""Judges and metrics from the ecosystem, as they are: an agentevals trajectory evaluator, an openevals evaluator and
MLflow scorers, as ``judge=`` and ``metrics=``, with their real packages."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentevals.trajectory.match import create_trajectory_match_evaluator
from mlflow.entities import Feedback
from mlflow.genai.scorers import scorer
from openevals.exact import exact_match

import dialectica
from dialectica.metrics.trajectory import calls_match, expected_call
from dialectica.sim.authoring.params import ConfigError
from tests.integration.test_tool_graph import SCENARIOS, SHOP


@scorer
def short_answers(outputs: Any) -> Feedback:
    """An MLflow scorer: the share of the graph's replies under eight words, with its reason."""
    replies = [m["content"] for m in outputs if m["role"] == "assistant" and m["content"]]
    short = sum(len(r.split()) < 8 for r in replies)
    return Feedback(value=short / len(replies) if replies else 0.0, rationale=f"{short} of {len(replies)} replies short")


@scorer
def refunded(outputs: Any) -> bool:
    return any("refunded" in str(m.get("content")) for m in outputs if m["role"] == "tool")


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (path / "episodes.jsonl").read_text().splitlines()]


def _made(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": t["speaker"], "args": t["args"]} for t in record["transcript"] if t["role"] == "tool_call"]


def test_an_agentevals_evaluator_is_the_judge_and_mlflow_scorers_are_metrics(tmp_path):
    judge = create_trajectory_match_evaluator(trajectory_match_mode="subset", tool_args_match_mode="ignore")
    run = dialectica.evaluate(
        SHOP, scenarios=SCENARIOS, episodes=len(SCENARIOS), max_turns=1, judge=judge,
        metrics=[short_answers, refunded], tracking="none", progress=False, out_dir=tmp_path / "run",
    )  # fmt: skip
    records = _records(tmp_path / "run")
    verdicts = set()
    for record in records:
        scenario = next(s for s in SCENARIOS if s["name"] == record["scenario"])
        names = [{"name": c["name"]} for c in _made(record)]
        expected = [{"name": expected_call(e)["name"]} for e in scenario["expected_tools"]]
        assert record["converged"] == calls_match(names, expected, "subset"), record["scenario"]
        verdicts.add(record["converged"])
        replies = [t["text"] for t in record["transcript"] if t["role"] == "assistant"]
        assert record["metrics"]["score/short_answers"] == sum(len(r.split()) < 8 for r in replies) / len(replies)
        assert record["artifacts"]["score/short_answers"].endswith("replies short")
        tools = [t["text"] for t in record["transcript"] if t["role"] == "tool"]
        assert record["metrics"]["score/refunded"] == float(any("refunded" in t for t in tools))
    assert verdicts == {True, False}
    assert run.metrics["score/refunded_mean"] == pytest.approx(
        sum(r["metrics"]["score/refunded"] for r in records) / len(records)
    )


def test_an_openevals_evaluator_reads_the_scenarios_reference(tmp_path):
    scenarios = [
        {"name": "status", "turns": ["status of A1"], "reference_outputs": "yes"},
        {"name": "other", "turns": ["status of B2"], "reference_outputs": "no"},
    ]

    def said_delivered(*, outputs: Any, reference_outputs: Any, **kw: Any) -> dict[str, Any]:
        """An openevals-style evaluator of our own, built on openevals' exact_match."""
        delivered = "yes" if any("A1: delivered" in str(m.get("content")) for m in outputs) else "no"
        return {**exact_match(outputs=delivered, reference_outputs=reference_outputs), "key": "said_delivered"}

    dialectica.evaluate(
        SHOP, scenarios=scenarios, episodes=2, max_turns=1, judge=said_delivered, tracking="none", progress=False,
        out_dir=tmp_path / "run",
    )  # fmt: skip
    assert [r["converged"] for r in _records(tmp_path / "run")] == [True, True]  # A1 delivered; B2 not, as expected


def test_an_evaluator_that_compares_with_a_reference_is_never_called_without_one(tmp_path):
    superset = create_trajectory_match_evaluator(trajectory_match_mode="superset", tool_args_match_mode="ignore")
    chat = {"name": "chat", "turns": ["status of A1"]}  # nothing to compare with: agentevals would pass it
    with pytest.raises(ConfigError, match=r"scenario 'chat' has neither 'reference_outputs' nor 'expected_tools' for"):
        dialectica.evaluate(SHOP, scenarios=[chat], judge=superset, tracking="none", out_dir=tmp_path / "bad")
    assert not (tmp_path / "bad").exists()
    ev = dialectica.evaluate(
        SHOP, scenarios=[SCENARIOS[0], chat], episodes=2, max_turns=1, metrics=superset, tracking="none",
        progress=False, out_dir=tmp_path / "run",
    )  # fmt: skip
    scored = {r["scenario"]: r["metrics"]["score/trajectory_superset_match"] for r in _records(tmp_path / "run")}
    assert scored == {"status": 1.0, "chat": None}  # undefined, not a match
    per_scenario = {k: v for k, v in ev.metrics.items() if k.startswith("scenario/") and "/score/" in k}
    assert per_scenario == {"scenario/status/score/trajectory_superset_match": 1.0}


def test_an_expected_tool_no_toolnode_holds_is_said_naming_their_tools(tmp_path, caplog):
    import logging

    typo = {"name": "status", "turns": ["status of A1"], "expected_tools": ["lookup_ordr"]}
    with caplog.at_level(logging.WARNING):
        dialectica.evaluate(
            SHOP, scenarios=[typo], episodes=1, max_turns=1, tracking="none", progress=False, out_dir=tmp_path
        )
    said = [r.getMessage() for r in caplog.records if "no ToolNode" in r.getMessage()]
    assert said == [
        "scenario 'status' expects the tool 'lookup_ordr', which no ToolNode of the graph holds "
        "(did you mean lookup_order?); their tools: issue_refund, lookup_order"
    ]


def test_a_metric_that_is_not_an_evaluator_is_one_line(tmp_path):
    with pytest.raises(ConfigError, match="not an evaluator; valid values: dialectica.rubric"):
        dialectica.evaluate(SHOP, scenarios=SCENARIOS, metrics=[len], tracking="none", out_dir=tmp_path / "bad")


def test_scorers_named_on_the_command_line(tmp_path):
    (tmp_path / "shop_checks.py").write_text(
        "from mlflow.genai.scorers import scorer\n\n"
        "@scorer\ndef refunded(outputs):\n"
        "    return any('refunded' in str(m.get('content')) for m in outputs if m['role'] == 'tool')\n"
    )
    (tmp_path / "scenarios.yaml").write_text(json.dumps(SCENARIOS))
    here = Path(__file__).parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here), str(tmp_path)])}
    args = ["graph=test_tool_graph:SHOP", "graph.scenarios=scenarios.yaml", "graph.max_turns=1", "episodes=6"]
    args += ["graph.judge=trajectory", "graph.metrics=shop_checks:refunded", "tracking=none", "progress=false"]  # one
    proc = subprocess.run(
        [sys.executable, "-m", "dialectica", *args, "hydra.run.dir=run"], cwd=tmp_path, env=env, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    records = _records(tmp_path / "run")
    assert {r["metrics"]["score/refunded"] for r in records} == {0.0, 1.0}
    assert not any(math.isnan(r["metrics"]["trajectory/match"]) for r in records)
    bad = subprocess.run(
        [sys.executable, "-m", "dialectica", *args[:-3], "graph.metrics=[shop_checks:scorer]", "tracking=none",
         "hydra.run.dir=bad"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and "graph.metrics: shop_checks:scorer is a function, not an evaluator" in bad.stderr
    typo = subprocess.run(
        [sys.executable, "-m", "dialectica", *args[:-3], "graph.metrics=[shop_checks:refundd]", "tracking=none",
         "hydra.run.dir=typo"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert typo.returncode == 2 and "graph.metrics: " in typo.stderr and "refunded?" in typo.stderr, typo.stderr


def test_an_mlflow_builtin_scorer_reads_the_graphs_final_reply(tmp_path):
    from mlflow.genai.scorers import RegexMatch

    said = RegexMatch(name="said_refunded", pattern="^Done: refunded")  # the clerk's closing words
    dialectica.evaluate(
        SHOP, scenarios=SCENARIOS, episodes=len(SCENARIOS), max_turns=1, metrics=[said], tracking="none",
        progress=False, out_dir=tmp_path / "run",
    )  # fmt: skip
    records = _records(tmp_path / "run")
    for record in records:  # the last reply, not the user's opening line (which a list's first item would be)
        last = [t["text"] for t in record["transcript"] if t["role"] == "assistant" and t["text"]][-1]
        assert record["metrics"]["score/said_refunded"] == float(last.startswith("Done: refunded")), last
    assert {r["metrics"]["score/said_refunded"] for r in records} == {0.0, 1.0}
