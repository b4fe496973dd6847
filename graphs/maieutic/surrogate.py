"""A surrogate learner: an LLM told its temperament and the thesis it starts from."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dialectica.graph import CastRequest, degree
from dialectica.graphs.maieutic.nodes import MaieuticDeps
from dialectica.graphs.maieutic.scripted import scripted_maieutic


def learner_persona(topic: dict[str, Any], persona: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"You are a student in a Socratic dialogue about the question: {topic['question']}",
            f"You start out believing that {topic['opening']}.",
            persona["character"],
            f"You are {degree(persona['openness'], 'slow', 'willing', 'quick')} to revise your view after a good question, "
            f"and {degree(persona['patience'], 'impatient', 'reasonably patient', 'very patient')} with being questioned.",
            "Answer in one to three sentences, in the first person, as this person would: say what you think and why.",
        ]
    )


def surrogate_maieutic(request: CastRequest) -> MaieuticDeps:
    """The scripted tutor (or LLM roles, per the llm config) against an LLM learner."""
    topic, persona = request.scenario["topic_spec"], request.scenario["persona_spec"]
    learner = request.participant("learner", learner_persona(topic, persona), "learner")
    return replace(scripted_maieutic(request), learner=learner)
