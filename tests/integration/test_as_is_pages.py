"""The pages of a graph used as it is: its final state (less ``messages``) and the context and knobs each episode
ran with; ``view.pages=all`` writes a page for every episode."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.runtime import Runtime

import dialectica
from dialectica.sim.authoring.params import ConfigError


@dataclass
class Counter:
    """The graph's runtime context: two knobs."""

    greeting: str = "Hello"
    limit: int = 2


class OrderState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    cart: list[str]
    receipt: str
    paid: bool


def clerk(state: OrderState, runtime: Runtime[Counter]) -> dict[str, Any]:
    cart = [*state.get("cart", []), str(state["messages"][-1].content)][-runtime.context.limit :]
    paid = "pay" in str(state["messages"][-1].content)
    receipt = "\n".join(f"line {i}: {item} x {i + 1}" for i, item in enumerate(cart * 20))  # long, several lines
    return {"messages": [AIMessage(f"{runtime.context.greeting}, noted.")], "cart": cart, "receipt": receipt, "paid": paid}


def _graph() -> Any:
    builder = StateGraph(OrderState, context_schema=Counter)
    builder.add_node("clerk", clerk)
    builder.add_edge(START, "clerk")
    builder.add_edge("clerk", END)
    return builder.compile()


SHOP = _graph()
TURNS = ["tea", "scones", "jam", "pay"]


def _run(tmp_path: Path, name: str, episodes: int = 4, overrides: tuple[str, ...] = ()) -> dialectica.Evaluation:
    return dialectica.evaluate(
        SHOP,
        scenarios=[{"name": "order", "turns": TURNS}],
        judge=lambda messages, scenario, state: bool(state.get("paid")),
        episodes=episodes,
        params={"greeting": "Good day"},
        tracking="none",
        progress=False,
        out_dir=tmp_path / name,
        overrides=list(overrides),
    )


def _records(run: dialectica.Evaluation) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run.run_dir / "episodes.jsonl").read_text().splitlines()]


def test_the_record_and_page_hold_the_final_state_less_messages_and_the_context(tmp_path: Path):
    run = _run(tmp_path, "run")
    record = _records(run)[0]
    assert record["context"] == {"greeting": "Good day", "limit": 2}  # a knob set, and one at its default
    state = record["final_state"]
    assert set(state) == {"cart", "receipt", "paid"}  # not messages: the transcript holds them
    assert state["cart"] == ["jam", "pay"] and state["paid"] is True
    page = (run.run_dir / run.name / "view" / "episode_0.html").read_text()
    section = re.search(r'<section id="final-state">.*?</section>', page, re.DOTALL).group(0)
    for key, value in (("greeting", "Good day"), ("limit", "2"), ("paid", "true")):
        assert f'<tr><td>{key}</td><td><span class="value">{value}</span></td></tr>' in section, key
    assert "<tr><td>cart</td><td><details" in section and "<td>messages</td>" not in section
    # the long receipt is folded: its opening in the summary, the whole under it
    folded = re.search(r"<tr><td>receipt</td><td><details.*?<summary>(.*?)</summary><pre>(.*?)</pre>", section, re.DOTALL)
    assert folded and folded.group(1).startswith("line 0: jam x 1") and folded.group(2).count("\n") == 39


def test_view_pages_all_writes_a_page_for_every_episode(tmp_path: Path):
    default = _run(tmp_path, "default", episodes=6)
    assert len(list((default.run_dir / default.name / "view").glob("episode_*.html"))) < 6
    every = _run(tmp_path, "all", episodes=6, overrides=("view.pages=all",))
    pages = {p.name for p in (every.run_dir / every.name / "view").glob("episode_*.html")}
    assert pages == {f"episode_{i}.html" for i in range(6)}
    assert 'data-pages="6"' in (every.run_dir / every.name / "view" / "index.html").read_text()


@pytest.mark.parametrize(
    ("pages", "episodes", "message"),
    [
        ("every", 4, "view.pages='every' is invalid; valid values: selected"),
        ("all", 501, "view.pages=all writes a page per episode, at most 500 a graph; episodes=501"),
    ],
)
def test_a_bad_pages_value_or_too_many_pages_is_refused_before_anything_runs(tmp_path: Path, pages, episodes, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        _run(tmp_path, "bad", episodes, (f"view.pages={pages}",))
    assert not (tmp_path / "bad").exists()
