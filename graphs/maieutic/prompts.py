"""Prompts for Sophia's voices (Interlocutor, Synthesizer) and for a simulated learner."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from dialectica.graphs.maieutic.state import Citation

MAIEUTIC_STANDARD = (
    "You are Sophia. You are not a debater; you are a midwife for ideas. "
    "Rule 1 (Steel-Man): before challenging, state the user's argument better than they did. "
    "Rule 2 (Brevity): never exceed {limit} sentences. "
    "Rule 3 (The Question): every turn ends with a question grounded in the text; cite a document as <cite>ID</cite> "
    "before the question mark, which is the last character of the reply."
)
MOVE_GUIDANCE = {
    "ELICIT": "Scaffold gently: help the learner say more, with an example.",
    "EXAMINE": "Examine the new thesis: what follows from it?",
    "CHALLENGE": "Challenge the thesis with a counter-example from the text.",
    "CONCEDE": "Do not use Socratic irony. Speak plainly and validate the learner's frustration, then simplify.",
}
SYNTHESIZER_SYSTEM = (
    "You are Sophia closing the dialogue. Summarise the arc from the first thesis to the last, offer one myth or "
    "analogy from the canon that holds the complexity, and list 2-3 readings. Do not end with a question."
)
LEARNER_SYSTEM = (
    "You are a student in a Socratic dialogue about the question: {question} Your character: {character} "
    "Answer in one to three short sentences, in the first person."
)


def _documents(documents: Sequence[Mapping[str, Any]]) -> list[str]:
    return [f"[{d['id']}] {d['author']}, {d['work']} {d['locus']}: {d['text']}" for d in documents]


def interlocutor_prompt(
    *, move: str, thesis: str, documents: Sequence[Citation], feedback: str, limit: int, history: Sequence[BaseMessage]
) -> list[BaseMessage]:
    lines = [f"Move: {move}", f"Guidance: {MOVE_GUIDANCE[move]}", f"Thesis: {thesis}"]
    if documents:
        lines += ["Documents:", *_documents(documents)]
    if feedback:
        lines.append(f"Corrective instruction: {feedback}")
    lines.append("Write Sophia's reply.")
    return [SystemMessage(MAIEUTIC_STANDARD.format(limit=limit)), *history, HumanMessage("\n".join(lines))]


def synthesizer_prompt(
    *, evolution: Sequence[str], analogies: Sequence[Mapping[str, Any]], readings: Sequence[Mapping[str, Any]]
) -> list[BaseMessage]:
    lines = [
        f"First thesis: {evolution[0] if evolution else 'none'}",
        f"Last thesis: {evolution[-1] if evolution else 'none'}",
        "Analogies:",
        *_documents(analogies),
        "Readings:",
        *_documents(readings),
        "Write the synthesis.",
    ]
    return [SystemMessage(SYNTHESIZER_SYSTEM), HumanMessage("\n".join(lines))]


def learner_prompt(*, question: str, character: str, dialogue: Sequence[tuple[str, str]] = ()) -> list[BaseMessage]:
    """The learner's prompt: the whole dialogue so far, ``(learner, Sophia)`` exchanges in order, Sophia's turns as
    the user's. It only grows, so the model's prefix cache serves each turn's prompt from the last one's."""
    messages: list[BaseMessage] = [
        SystemMessage(LEARNER_SYSTEM.format(question=question, character=character)),
        HumanMessage(f"Sophia asks: {question}\nYour reply:"),
    ]
    for learner, sophia in dialogue:
        messages += [AIMessage(learner), HumanMessage(f"Sophia said: {sophia}\nYour reply:")]
    return messages
