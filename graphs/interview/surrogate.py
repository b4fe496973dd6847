"""A surrogate interviewee: an LLM told its business and the hidden facts the interview should find."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dialectica.graph import CastRequest, bullet, degree
from dialectica.graphs.interview.nodes import InterviewDeps
from dialectica.graphs.interview.schema import DiscoverySchema, Field
from dialectica.graphs.interview.scripted import scripted_interview


def _say(field: Field, value: Any) -> str:
    """A true value in the schema's own words, so an answer that repeats it can be read."""
    if field.kind == "list":
        return ", ".join(field.vocabulary[v][0] if v in field.vocabulary else str(v) for v in value)
    if field.kind == "choice":
        return field.vocabulary[value][0] if value in field.vocabulary else str(value)
    if field.kind == "map":
        return ", ".join(f"{n} {field.vocabulary[k][0] if k in field.vocabulary else k}" for k, n in value.items())
    return str(value)


def interviewee_persona(persona: dict[str, Any], schema: DiscoverySchema) -> str:
    truth = persona["truth"][schema.id]
    facts = [f"{f.question.rstrip('?')}: {_say(f, truth[f.name])}" for f in schema.fields if f.name in truth]
    return "\n".join(
        [
            f"You run scheduling at {persona['business']} and are being interviewed about it.",
            "The facts of your business (answer from these, only what is asked):",
            bullet(facts),
            f"You are {degree(persona['vagueness'], 'precise', 'sometimes vague', 'often vague')} "
            f"and {degree(persona['off_topic'], 'stay on topic', 'sometimes wander off topic', 'often wander off topic')}.",
        ]
    )


def surrogate_interview(request: CastRequest) -> InterviewDeps:
    """The scripted interviewer (or an LLM one, per the llm config) against an LLM interviewee."""
    schema = DiscoverySchema.from_dict(request.scenario["schema"])
    expert = request.participant("interviewee", interviewee_persona(request.scenario["persona"], schema), "interviewee")
    return replace(scripted_interview(request), expert=expert)
