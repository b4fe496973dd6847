"""A tool-calling graph written without Dialectica in mind (a ``ToolNode``, two tools, its own model), evaluated
as it is: its tool calls and path against each scenario's expectations, in every mode, by hand."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

import dialectica


@tool
def lookup_order(order: str) -> str:
    """The status of an order."""
    return f"order {order}: delivered"


@tool
def issue_refund(order: str, amount: int) -> str:
    """Refunds part of an order."""
    if amount > 100:
        raise ValueError("refunds over 100 need a manager")
    return f"refunded {amount} on {order}"


class Clerk(BaseChatModel):
    """The shop's model: calls tools by rule, then answers."""

    @property
    def _llm_type(self) -> str:
        return "clerk"

    def bind_tools(self, tools: Any, **kw: Any) -> Clerk:  # type: ignore[override]
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        last = messages[-1]
        words = str(last.content).split()
        calls: list[dict[str, Any]] = []
        if last.type == "tool":
            message = AIMessage(f"Done: {last.content}")
        elif words[:2] == ["status", "of"]:
            calls = [{"name": "lookup_order", "args": {"order": words[2]}, "id": "c1"}]
        elif words[:1] == ["refund"]:
            refund = {"name": "issue_refund", "args": {"order": words[1], "amount": int(words[2])}, "id": "c2"}
            calls = [{"name": "lookup_order", "args": {"order": words[1]}, "id": "c1"}] * (int(words[2]) < 100) + [refund]
        if calls:
            message = AIMessage("", tool_calls=calls)
        elif last.type != "tool":
            message = AIMessage("How can I help?")
        return ChatResult(generations=[ChatGeneration(message=message)])


MODEL = Clerk().bind_tools([lookup_order, issue_refund])


def agent(state: MessagesState) -> dict[str, Any]:
    return {"messages": [MODEL.invoke(state["messages"])]}


builder = StateGraph(MessagesState)
builder.add_node("agent", agent)
builder.add_node("tools", ToolNode([lookup_order, issue_refund], handle_tool_errors=True))  # a failed tool: a message
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", tools_condition)
builder.add_edge("tools", "agent")
SHOP = builder.compile()

REFUND_5 = {"name": "issue_refund", "args": {"amount": 5}}
REFUND_500 = {"name": "issue_refund", "args": {"amount": 500}}
SCENARIOS = [
    {"name": "status", "turns": ["status of A1"], "expected_tools": ["lookup_order"],
     "expected_path": ["agent", "tools", "agent"]},
    {"name": "refund_superset", "turns": ["refund A1 5"], "expected_tools": [REFUND_5], "trajectory_mode": "superset"},
    {"name": "refund_subset", "turns": ["refund A1 5"], "expected_tools": ["issue_refund"], "trajectory_mode": "subset"},
    {"name": "refund_strict", "turns": ["refund A1 5"], "expected_tools": ["issue_refund", "lookup_order"],
     "expected_path": ["agent", "tools"], "trajectory_mode": "strict"},
    {"name": "refund_unordered", "turns": ["refund A1 5"], "expected_tools": ["issue_refund", "lookup_order"],
     "expected_path": ["tools", "agent", "agent"], "trajectory_mode": "unordered"},
    {"name": "big_refund", "turns": ["refund A1 500"], "expected_tools": [REFUND_500]},
]  # fmt: skip
# By hand: (trajectory/match, tools/precision, tools/recall, tools/argument_match, tools/errors, path/match)
EXPECTED = {
    "status": (1, 1, 1, math.nan, 0, 1),
    "refund_superset": (1, 1 / 2, 1, 1, 0, None),
    "refund_subset": (0, 1 / 2, 1, math.nan, 0, None),  # lookup_order was not asked for
    "refund_strict": (0, 1, 1, math.nan, 0, 0),  # both calls, but lookup came first; the path is longer
    "refund_unordered": (1, 1, 1, math.nan, 0, 1),  # the same calls and nodes, in another order
    "big_refund": (1, 1, 1, 1, 1, None),  # the refund was called as expected, and failed
}
KEYS = ("trajectory/match", "tools/precision", "tools/recall", "tools/argument_match", "tools/errors", "path/match")


def _evaluate(tmp_path: Any, name: str, **kw: Any) -> list[dict[str, Any]]:
    dialectica.evaluate(
        SHOP, scenarios=SCENARIOS, episodes=len(SCENARIOS), max_turns=1, tracking="none", progress=False,
        out_dir=tmp_path / name, **kw,
    )  # fmt: skip
    return [json.loads(line) for line in (tmp_path / name / "episodes.jsonl").read_text().splitlines()]


def test_tool_and_path_metrics_match_the_hand_computed_values_in_every_mode(tmp_path):
    records = _evaluate(tmp_path, "run")
    assert {r["scenario"] for r in records} == set(EXPECTED)
    for record in records:
        got = [record["metrics"].get(k, None) for k in KEYS]
        for key, value, want in zip(KEYS, got, EXPECTED[record["scenario"]], strict=True):
            if want is None:
                assert key not in record["metrics"], (record["scenario"], key)  # no expected path: no metric
            elif isinstance(want, float) and math.isnan(want):
                assert value is None, (record["scenario"], key)  # NaN is written as null
            else:
                assert value == pytest.approx(want), (record["scenario"], key, value)
    calls = [t for t in next(r for r in records if r["scenario"] == "big_refund")["transcript"] if "tool" in t["role"]]
    assert calls[0]["args"] == {"order": "A1", "amount": 500} and calls[1].get("error") is True
    (entry,) = json.loads((tmp_path / "run" / "summary.json").read_text())["graphs"].values()
    summary = entry["metrics"]
    assert summary["scenario/refund_subset/trajectory/match"] == 0 and summary["scenario/status/path/match"] == 1
    assert summary["trajectory/match_mean"] == pytest.approx(4 / 6)


def test_the_trajectory_matcher_as_the_judge(tmp_path):
    records = _evaluate(tmp_path, "judged", judge=dialectica.TrajectoryJudge())
    for record in records:
        assert record["converged"] == bool(EXPECTED[record["scenario"]][0]), record["scenario"]
    assert (
        "expected (superset) issue_refund"
        in next(r for r in records if r["scenario"] == "refund_superset")["artifacts"]["judge"]
    )
    with pytest.raises(dialectica.sim.authoring.params.ConfigError, match="has no 'expected_tools' for the trajectory"):
        dialectica.evaluate(SHOP, scenarios=[{"name": "x", "turns": ["hi"]}], judge=dialectica.TrajectoryJudge(),
                            tracking="none", progress=False, out_dir=tmp_path / "bad")  # fmt: skip


def test_each_tool_call_is_a_span_of_the_episodes_trace(tmp_path):
    from mlflow.tracing.client import TracingClient
    from mlflow.tracking import MlflowClient

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    dialectica.evaluate(
        SHOP, scenarios=SCENARIOS, episodes=len(SCENARIOS), max_turns=1, tracking=uri, progress=False,
        out_dir=tmp_path / "run", overrides=["traces=all"],
    )  # fmt: skip
    records = {r["episode"]: r for r in map(json.loads, (tmp_path / "run" / "episodes.jsonl").read_text().splitlines())}
    (entry,) = json.loads((tmp_path / "run" / "summary.json").read_text())["graphs"].values()
    experiment = MlflowClient(uri).get_run(entry["mlflow_run_id"]).info.experiment_id
    traces = TracingClient(uri).search_traces(locations=[experiment], run_id=entry["mlflow_run_id"], max_results=50)
    assert len(traces) == len(SCENARIOS)
    for trace in traces:
        record = records[int(trace.info.tags["dialectica.episode"])]
        tools = [s for s in trace.data.spans if s.span_type == "TOOL"]
        made = [t for t in record["transcript"] if t["role"] == "tool_call"]
        assert [s.name for s in tools] == [t["speaker"] for t in made]  # one span per call, in order
        assert [s.inputs for s in tools] == [t["args"] for t in made]  # with the arguments the record keeps
        results = [t for t in record["transcript"] if t["role"] == "tool"]
        for span, result in zip(tools, results, strict=True):  # a failed call is a failed span; others carry the result
            assert (span.status.status_code == "ERROR") == bool(result.get("error"))
            assert result.get("error") or span.outputs["content"] == result["text"]
