"""Scripted interviewer and domain experts for ``graph=interview``.

An expert holds a hidden ground-truth ASCR per schema and answers only the field a
question asks about (recognised from the schema's ``asks`` words), in its own words
(the schema's vocabulary phrases). Persona rates make it vague, wander off topic,
or contradict the truth now and then.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from dialectica.graph import CastRequest, ScriptedChatModel, last_human
from dialectica.graphs.interview.nodes import InterviewDeps
from dialectica.graphs.interview.schema import DiscoverySchema, Field

_VAGUE = ("Hard to say, it varies a lot.", "It depends on the week, honestly.", "That's complicated, we manage somehow.")


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass
class ScriptedExpert:
    persona: dict[str, Any]
    schema: DiscoverySchema
    rng: random.Random
    told: dict[str, set[Any]] = field(default_factory=dict)

    @property
    def truth(self) -> dict[str, Any]:
        truth: dict[str, Any] = self.persona["truth"][self.schema.id]
        return truth

    def _field(self, question: str) -> Field | None:
        words = set(re.findall(r"[a-z]+", question.lower()))
        text = question.lower()
        scored = [
            (sum(a in words or (" " in a and a in text) for a in f.asks), i, f) for i, f in enumerate(self.schema.fields)
        ]
        best = max(scored, key=lambda x: (x[0], -x[1]))
        return best[2] if best[0] else None

    def _phrase(self, f: Field, value: str) -> str:
        return self.rng.choice(f.vocabulary[value])

    def _wrong(self, f: Field, value: Any) -> Any:
        if f.kind == "choice":
            others = [v for v in f.vocabulary if v != value]
            return self.rng.choice(others) if others else value
        if f.kind == "number":
            return max(1, int(value) + self.rng.choice((-3, -2, 2, 5)))
        if f.kind == "list":
            others = [v for v in f.vocabulary if v not in value]
            return [self.rng.choice(others)] if others else value
        return value

    def _answer(self, f: Field) -> str:
        value = self.truth[f.name]
        if self.rng.random() < self.persona["contradiction"] and f.kind in ("choice", "number", "list"):
            value = self._wrong(f, value)
        if f.kind == "text":
            return f"Mostly {value}."
        if f.kind == "number":
            return f"About {value}, give or take."
        if f.kind == "choice":
            return f"We {self._phrase(f, value)}, for the most part."
        if f.kind == "map":
            return "We have " + _join([f"{n} {f.vocabulary[k][0]}" for k, n in value.items()]) + "."
        told = self.told.setdefault(f.name, set())
        fresh = [v for v in value if v not in told] or list(value)
        picked = fresh[: self.persona["items_per_answer"]]
        told.update(picked)
        return f"The main ones are {_join([self._phrase(f, v) for v in picked])}."

    def reply(self, messages: Sequence[BaseMessage]) -> str:
        question = last_human(messages)
        match = re.search(r"^Interviewer: (.*?)\s*(?:\nYour answer:|\Z)", question, re.MULTILINE | re.DOTALL)
        question = match.group(1) if match else question
        roll = self.rng.random()
        if roll < self.persona["off_topic"]:
            return str(self.rng.choice(self.persona["off_topic_lines"]))
        if roll < self.persona["off_topic"] + self.persona["vagueness"]:
            return self.rng.choice(_VAGUE)
        f = self._field(question)
        return self._answer(f) if f else self.rng.choice(_VAGUE)


@dataclass
class ScriptedInterviewer:
    rng: random.Random

    def reply(self, messages: Sequence[BaseMessage]) -> str:
        prompt = last_human(messages)
        need = re.search(r"^What we need: (.*)$", prompt, re.MULTILINE)
        times = re.search(r"^Times asked before: (\d+)$", prompt, re.MULTILINE)
        question = need.group(1) if need else "Could you tell me more?"
        if times and int(times.group(1)) > 0:
            return self.rng.choice(("Let me come back to this. ", "Just to be sure, ")) + question
        return question


def scripted_interview(request: CastRequest) -> InterviewDeps:
    schema = DiscoverySchema.from_dict(request.scenario["schema"])
    persona = request.scenario["persona"]
    return InterviewDeps(
        interviewer=request.system(
            "interviewer",
            lambda: ScriptedChatModel(
                policy=ScriptedInterviewer(random.Random(f"{request.seed}:interviewer")).reply, role="interviewer"
            ),
        ),
        expert=request.scripted_participant(
            "interviewee",
            ScriptedChatModel(
                policy=ScriptedExpert(persona, schema, random.Random(f"{request.seed}:expert")).reply, role="interviewee"
            ),
        ),
        schema=schema,
        business=persona["business"],
    )
