"""Sophia's state: the logical structure of the conversation, not just its text."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

Move = Literal["ELICIT", "EXAMINE", "CHALLENGE", "CONCEDE", "SYNTHESIZE"]
MOVES: tuple[str, ...] = ("ELICIT", "EXAMINE", "CHALLENGE", "CONCEDE", "SYNTHESIZE")


class Citation(TypedDict):
    id: str
    work: str
    author: str
    locus: str
    text: str
    similarity: float


class MaieuticState(TypedDict, total=False):
    """Fields with reducers accumulate across turns; the rest are last-write."""

    topic: str
    messages: Annotated[list[AnyMessage], add_messages]
    current_thesis: str
    thesis_evolution: Annotated[list[str], operator.add]
    user_sentiment: Literal["curious", "defensive", "fatigued"]
    frustration_level: float
    socratic_move: Move
    search_query: str
    documents: Annotated[list[Citation], operator.add]  # every citation retrieved in the session
    turn_documents: list[Citation]  # what the Librarian found for this turn
    critic_failures: int  # failures in this turn; reset by the Analyst
    critic_feedback: str
    critic_verdict: Literal["pass", "revise", "cap", "unavailable"]
    critic_drafts: list[dict[str, Any]]  # the Critic's verdict on each draft of this turn; reset by the Analyst
    critic_log: Annotated[list[dict[str, Any]], operator.add]  # every tutor turn's drafts and verdicts
    draft: str
    interlocutor_error: str  # why the Interlocutor gave no draft (its call failed twice), else ""
    circled: bool  # this turn returned to an earlier thesis
    revised: bool  # this turn moved to a new thesis (not the first, not a return)
    circle_count: int
    good_will_overrides: Annotated[int, operator.add]
    turn_log: Annotated[list[dict[str, Any]], operator.add]
    retrievals: Annotated[list[dict[str, Any]], operator.add]
    synthesis: str
    ending: str  # synthesis | aporia | gave_up, set when the Analyst calls for the synthesis
    finished: bool
