"""``judge_every_turn``: the episode ends as soon as the judge finds the goal met, not when the user tires."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

import dialectica


def clerk(state: MessagesState) -> dict[str, Any]:
    asked = sum(m.type == "human" for m in state["messages"])
    return {"messages": [AIMessage("Here is your ticket." if asked >= 2 else "Please wait.")]}


builder = StateGraph(MessagesState)
builder.add_node("clerk", clerk)
builder.add_edge(START, "clerk")
DESK = builder.compile()


def chatty(messages: Any, scenario: Any, rng: Any) -> str:
    return "And another thing..."  # an LLM user that keeps talking after its goal was met


def run(tmp_path: Path, name: str, calls: list[int], **kw: Any) -> list[dict[str, Any]]:
    def served(messages: Any, scenario: Any) -> bool:
        calls.append(len(messages))
        return any("ticket" in str(m.content) for m in messages if m.type == "ai")

    dialectica.evaluate(
        DESK,
        scenarios=[{"name": "queue"}],
        user=chatty,
        judge=served,
        episodes=2,
        max_turns=6,
        tracking="none",
        progress=False,
        out_dir=tmp_path / name,
        **kw,
    )
    return [json.loads(line) for line in (tmp_path / name / "episodes.jsonl").read_text().splitlines()]


def test_by_default_the_judge_reads_the_whole_dialogue_once(tmp_path):
    calls: list[int] = []
    records = run(tmp_path, "once", calls)
    assert [r["metrics"]["rounds"] for r in records] == [6, 6]  # the user talked on to the turn limit
    assert calls == [12, 12] and all(r["termination_reason"] == "converged" for r in records)


def test_judging_every_turn_ends_the_episode_when_the_goal_is_met(tmp_path):
    calls: list[int] = []
    records = run(tmp_path, "every", calls, judge_every_turn=True)
    assert [r["metrics"]["rounds"] for r in records] == [2, 2]  # the ticket came with the second reply
    assert calls == [2, 4, 2, 4]  # after each reply, and not again at the end
    assert all(r["termination_reason"] == "converged" and r["converged"] for r in records)


def test_judging_every_turn_still_ends_at_the_limit_when_the_goal_is_never_met(tmp_path):
    calls: list[int] = []

    def never(messages: Any, scenario: Any) -> bool:
        calls.append(len(messages))
        return False

    path = tmp_path / "never"
    dialectica.evaluate(
        DESK, scenarios=[{"name": "q"}], user=chatty, judge=never, episodes=1, max_turns=3,
        judge_every_turn=True, tracking="none", progress=False, out_dir=path,
    )  # fmt: skip
    (record,) = [json.loads(line) for line in (path / "episodes.jsonl").read_text().splitlines()]
    assert record["termination_reason"] == "max_turns" and record["metrics"]["rounds"] == 3
    assert calls == [2, 4, 6]  # the last judgment is the verdict: the final dialogue is not judged twice
