"""The five nodes of the interview loop."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from dialectica.graph import attempt
from dialectica.graphs.interview.interpret import interpret
from dialectica.graphs.interview.params import InterviewParams
from dialectica.graphs.interview.schema import DiscoverySchema
from dialectica.graphs.interview.state import InterviewState

INTERVIEWER_SYSTEM = (
    "You interview a domain expert about how their business schedules its work. Ask one short, concrete "
    "question at a time about the field you are given; never ask about something already known."
)
EXPERT_SYSTEM = "You are the scheduling expert at {business}. Answer the interviewer briefly and only what is asked."


@dataclass
class InterviewDeps:
    interviewer: BaseChatModel
    expert: BaseChatModel
    schema: DiscoverySchema
    business: str = "a manufacturing business"


class InterviewNodes:
    def __init__(self, deps: InterviewDeps, params: InterviewParams) -> None:
        self.deps = deps
        self.p = params

    def formulate_question(self, state: InterviewState) -> dict[str, Any]:
        asked = Counter(m["field"] for m in state.get("messages", []) if m["from"] == "interviewer")
        field = self.deps.schema.next_field(state.get("ascr", {}), asked)
        said = state.get("messages", [])
        answered = [f"The expert answered: {said[-1]['content']}"] if said and said[-1]["from"] == "expert" else []
        prompt = "\n".join(
            [
                *answered,
                f"Discovery schema: {self.deps.schema.title}",
                f"Field: {field.name}",
                f"What we need: {field.question}",
                f"Times asked before: {asked.get(field.name, 0)}",
                f"Already known: {json.dumps(state.get('ascr', {}))}",
                "Ask one question.",
            ]
        )
        # The interviewer gets one retry; if it still does not answer, the schema's own question is asked (as when
        # it says nothing), and the turn is marked a fallback.
        # Its prompt is its own dialogue: what it was asked each turn and what it asked, unchanged, then this turn's
        # prompt; so the prompt only grows, and the model's prefix cache serves it from the last one's.
        messages: list[BaseMessage] = [SystemMessage(INTERVIEWER_SYSTEM)]
        for m in said:
            if m["from"] == "interviewer":
                messages += [HumanMessage(m.get("asked") or f"Field: {m['field']}"), AIMessage(m["content"])]
        messages.append(HumanMessage(prompt))
        text, _, error = attempt(lambda: str(self.deps.interviewer.invoke(messages).content).strip())
        message = {
            "from": "interviewer",
            "content": text or field.question,
            "field": field.name,
            "fallback": error is not None,
            "asked": prompt,
        }
        errors = [{"node": "formulate_question", "error": error}] if error else []
        return {"messages": [message], "target_field": field.name, "errors": errors}

    def spent(self, state: InterviewState) -> float:
        """The budget spent so far (a state kept before it was counted so holds what was left instead)."""
        return state.get("budget_used", self.p.budget - state.get("budget_left", self.p.budget))

    def check_budget(self, state: InterviewState) -> dict[str, Any]:
        return {"budget_used": self.spent(state) + self.p.question_cost}

    def get_answer(self, state: InterviewState) -> dict[str, Any]:
        # the whole interview so far, the interviewer's turns as the user's: the expert remembers what it said, and
        # its prompt only grows, so the model's prefix cache serves each answer's prompt from the last one's
        messages: list[BaseMessage] = [SystemMessage(EXPERT_SYSTEM.format(business=self.deps.business))]
        for m in state["messages"]:
            said = m["content"]
            messages.append(
                HumanMessage(f"Interviewer: {said}\nYour answer:") if m["from"] == "interviewer" else AIMessage(said)
            )
        # One retry; an expert who still does not answer wastes the turn (a fallback), not the interview.
        content, _, error = attempt(lambda: self.deps.expert.invoke(messages).content)
        errors = [{"node": "get_answer", "error": error}] if error else []
        return {
            "messages": [
                {
                    "from": "expert",
                    "content": "" if content is None else content,
                    "field": state["target_field"],
                    "fallback": error is not None,
                }
            ],
            "errors": errors,
        }

    def interpret_response(self, state: InterviewState) -> dict[str, Any]:
        scr = interpret(state["messages"][-1]["content"], self.deps.schema, state["target_field"])
        return {
            "ascr": scr,
            "turn_log": [
                {
                    "round": len(state.get("turn_log", [])) + 1,
                    "field": state["target_field"],
                    "scr": scr,
                    "wasted": not scr,
                    "budget_left": self.p.budget - self.spent(state),
                }
            ],
        }

    def evaluate_completion(self, state: InterviewState) -> dict[str, Any]:
        ascr = state.get("ascr", {})
        if self.deps.schema.complete(ascr):
            return {"complete": True, "end_reason": "criteria"}
        if self.p.budget - self.spent(state) < self.p.question_cost:
            return {"complete": True, "end_reason": "budget"}
        return {"complete": False}

    def route(self, state: InterviewState) -> str:
        return "done" if state["complete"] else "ask"
