"""Ready conversation rubrics, as the judge and as extra metrics, on a model that judges by rule."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.graph import START, MessagesState, StateGraph

import dialectica
from dialectica.sim.adapter.rubrics import RUBRICS
from dialectica.sim.authoring.params import ConfigError

ASKED: list[str] = []  # which rubrics the reader was asked


class RubricReader(BaseChatModel):
    """Passes a conversation on a rubric when the assistant gave a ticket; records which rubrics it was asked."""

    @property
    def _llm_type(self) -> str:
        return "reader"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        prompt = str(messages[-1].content)
        ASKED.append(next(name for name, text in RUBRICS.items() if text in prompt))
        passed = "ticket" in prompt.split("</conversation>")[0]
        reply = json.dumps({"reason": "a ticket was given" if passed else "no ticket", "passed": passed})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])


def clerk(state: MessagesState) -> dict[str, Any]:
    keen = "ticket" in str(state["messages"][-1].content)
    return {"messages": [AIMessage("Here is your ticket." if keen else "Please wait.")]}


builder = StateGraph(MessagesState)
builder.add_node("clerk", clerk)
builder.add_edge(START, "clerk")
DESK = builder.compile()
SCENARIOS = [{"name": "asks", "turns": ["a ticket please"]}, {"name": "vague", "turns": ["hello"]}]


def test_rubrics_score_each_episode_beside_the_judge(tmp_path):
    reader = RubricReader()
    ASKED.clear()
    dialectica.evaluate(
        DESK, scenarios=SCENARIOS, episodes=2, judge=dialectica.rubric("goal_completion", model=reader),
        metrics=[dialectica.rubric("user_frustration", model=reader), dialectica.rubric("turn_relevancy", model=reader)],
        tracking="none", progress=False, out_dir=tmp_path / "run",
        overrides=["graph.cache=null"],  # the reader is asked every time, not answered from an earlier run's calls
    )  # fmt: skip
    records = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    by_scenario = {r["scenario"]: r for r in records}
    assert by_scenario["asks"]["converged"] and not by_scenario["vague"]["converged"]
    assert by_scenario["asks"]["metrics"]["rubric/user_frustration"] == 1.0
    assert by_scenario["vague"]["metrics"]["rubric/turn_relevancy"] == 0.0
    assert by_scenario["vague"]["artifacts"]["rubric/turn_relevancy"] == "no ticket"
    assert sorted(ASKED) == sorted(["goal_completion", "user_frustration", "turn_relevancy"] * 2)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    (entry,) = summary["graphs"].values()
    assert entry["metrics"]["rubric/user_frustration_mean"] == 0.5


def test_an_unknown_rubric_names_the_ready_ones():
    with pytest.raises(ConfigError, match=r"unknown rubric 'goal_complete' \(did you mean goal_completion\?\)"):
        dialectica.rubric("goal_complete")
