"""The haggle graph: seller asks, buyer offers, a pure router decides whether the gap has closed.

The graph is compiled once; each episode's chat models and thresholds arrive through LangGraph's
runtime context (``runtime.context`` is a ``dialectica.graph.Episode``).
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from dialectica.graph import Episode, EpisodeOutcome, TerminationReason, bounded

_PRICE = re.compile(r"(\d+(?:\.\d+)?)")


@dataclass(frozen=True)
class HaggleParams:
    """Thresholds: ``graph.gap`` and ``graph.max_rounds`` (range-checked by ``bounded``)."""

    gap: float = bounded(0.05, 0.0, 1.0)  # offers this close (share of the ask) close the deal
    max_rounds: int = bounded(8, 1, 100)


@dataclass
class HaggleDeps:
    buyer: BaseChatModel
    seller: BaseChatModel
    item: str


class HaggleState(TypedDict, total=False):
    round: int
    ask: float
    offer: float
    turns: Annotated[list[dict[str, Any]], operator.add]


Context = Episode[HaggleDeps, HaggleParams]


def _price(text: str, fallback: float) -> float:
    """The first number in a reply; a reply without one keeps the last price."""
    match = _PRICE.search(text.replace(",", ""))
    return float(match.group(1)) if match else fallback


def seller_turn(state: HaggleState, runtime: Runtime[Context]) -> dict[str, Any]:
    deps, n = runtime.context.deps, state.get("round", 0) + 1
    prompt = f"You sell {deps.item}. Your last ask: {state['ask']:.0f}. The buyer offers {state['offer']:.0f}. Your ask?"
    text = str(deps.seller.invoke([HumanMessage(prompt)]).content)
    return {
        "round": n,
        "ask": _price(text, state["ask"]),
        "turns": [{"round": n, "role": "participant", "speaker": "seller", "text": text}],
    }


def buyer_turn(state: HaggleState, runtime: Runtime[Context]) -> dict[str, Any]:
    deps = runtime.context.deps
    prompt = f"You want {deps.item}. The seller asks {state['ask']:.0f}. Your last offer: {state['offer']:.0f}. Your offer?"
    text = str(deps.buyer.invoke([HumanMessage(prompt)]).content)
    return {
        "offer": _price(text, state["offer"]),
        "turns": [{"round": state["round"], "role": "participant", "speaker": "buyer", "text": text}],
    }


def route(state: HaggleState, runtime: Runtime[Context]) -> str:
    """``deal`` when the gap has closed, ``stop`` at the round limit, else ``counter``."""
    params = runtime.context.params
    if state["ask"] - state["offer"] <= params.gap * state["ask"]:
        return "deal"
    return "stop" if state["round"] >= params.max_rounds else "counter"


def build() -> Any:
    g = StateGraph(HaggleState, context_schema=Episode)
    g.add_node("seller_turn", seller_turn)
    g.add_node("buyer_turn", buyer_turn)
    g.add_edge(START, "seller_turn")
    g.add_edge("seller_turn", "buyer_turn")
    g.add_conditional_edges("buyer_turn", route, {"deal": END, "stop": END, "counter": "seller_turn"})
    return g.compile()


def recursion_limit(params: HaggleParams) -> int:
    return 2 * params.max_rounds + 5


def initial_state(scenario: dict[str, Any], params: HaggleParams) -> HaggleState:
    return {"round": 0, "ask": float(scenario["list_price"]), "offer": float(scenario["opening_offer"])}


def outcome(state: dict[str, Any], params: HaggleParams, scenario: dict[str, Any]) -> EpisodeOutcome:
    gap = (state["ask"] - state["offer"]) / state["ask"]
    deal = gap <= params.gap
    return EpisodeOutcome(
        termination=TerminationReason.CONVERGED if deal else TerminationReason.MAX_ROUNDS,
        metrics={"rounds": state["round"], "final_gap": gap, "price": (state["ask"] + state["offer"]) / 2},
        per_round=[{"round": t["round"]} for t in state["turns"] if t["speaker"] == "buyer"],
        transcript=state["turns"],
    )
