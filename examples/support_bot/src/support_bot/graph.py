"""An airline customer-support bot, written the way a LangGraph tutorial would.

The assistant looks a booking up with a tool, refunds it when the flight is recent enough, and hands the
customer to a colleague when they cannot give a booking number. Its decisions are plain rules, so the
graph runs without a model.
"""

import json
import re
from dataclasses import dataclass

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.runtime import Runtime

BOOKINGS = {  # booking number -> the flight, as the airline's system has it
    "AB1234": {"route": "LIS-AMS", "days_since_flight": 2, "fare": 180},
    "CD5678": {"route": "AMS-NYC", "days_since_flight": 45, "fare": 620},
    "EF9012": {"route": "BER-ROM", "days_since_flight": 10, "fare": 140},
    "GH3456": {"route": "MAD-OSL", "days_since_flight": 21, "fare": 260},
}
BOOKING = re.compile(r"\b([A-Z]{2}\d{4})\b")
REFUND = re.compile(r"\b(refund|money back|reimburse)", re.IGNORECASE)


@dataclass
class SupportContext:
    refund_window_days: int = 30  # flights this recent are refunded
    max_clarifications: int = 2  # times the bot asks for a booking number before it escalates


class SupportState(MessagesState):
    refunded: bool
    escalated: bool
    clarifications: int


@tool
def lookup_booking(booking: str) -> str:
    """Look a booking up by its number."""
    flight = BOOKINGS.get(booking.upper())
    return json.dumps({"booking": booking, "found": flight is not None, **(flight or {})})


@tool
def issue_refund(booking: str) -> str:
    """Refund a booking's fare."""
    return f"refunded {BOOKINGS[booking]['fare']} EUR"


def call(name: str, booking: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {"booking": booking}, "id": f"{name}-{booking}"}])


def assistant(state: SupportState, runtime: Runtime[SupportContext]) -> dict:
    ctx = runtime.context or SupportContext()
    last = state["messages"][-1]
    if isinstance(last, ToolMessage) and last.name == "issue_refund":
        return {"messages": [AIMessage(f"Done: your refund has been issued ({last.text}).")], "refunded": True}
    if isinstance(last, ToolMessage):  # lookup_booking's answer
        flight = json.loads(last.text)
        if not flight["found"]:
            return {"messages": [AIMessage(f"I can't find booking {flight['booking']}. Could you check the number?")]}
        if flight["days_since_flight"] <= ctx.refund_window_days:
            return {"messages": [call("issue_refund", flight["booking"])]}
        return {
            "messages": [
                AIMessage(
                    f"Sorry, your flight was {flight['days_since_flight']} days ago, so it is not "
                    f"eligible for a refund (we refund within {ctx.refund_window_days} days)."
                )
            ]
        }
    said = [m.text for m in state["messages"] if isinstance(m, HumanMessage)]
    if not any(REFUND.search(text) for text in said):
        return {"messages": [AIMessage("Hello! How can I help you with your booking today?")]}
    found = BOOKING.findall(said[-1].upper())
    if found:
        return {"messages": [call("lookup_booking", found[0])]}
    asked = state.get("clarifications", 0)
    if asked >= ctx.max_clarifications:
        return {"messages": [AIMessage("I'm transferring you to a colleague who can find your booking.")], "escalated": True}
    return {
        "messages": [AIMessage("I can help with a refund. What is your booking number (like AB1234)?")],
        "clarifications": asked + 1,
    }


builder = StateGraph(SupportState, context_schema=SupportContext)
builder.add_node("assistant", assistant)
builder.add_node("tools", ToolNode([lookup_booking, issue_refund]))
builder.add_edge(START, "assistant")
builder.add_conditional_edges("assistant", tools_condition)  # tool calls -> "tools", else the end of the turn
builder.add_edge("tools", "assistant")
graph = builder.compile()
