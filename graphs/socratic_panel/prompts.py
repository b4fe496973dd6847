"""Prompts the Socratic panel sends to its moderator and experts.

The labelled lines ("Question type:", "Target assumption:") are instructions a
real LLM reads; scripted models parse the same lines, in the last message.

Each speaker's prompt is its own dialogue: its earlier rounds' messages and replies, unchanged, then this
round's message. So each call's prompt extends the speaker's previous one, and the local model's prefix cache
(a context per speaker, ``llm.contexts``) evaluates only what is new.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

MODERATOR_SYSTEM = (
    "You are the moderator of a Socratic panel. You ask one probing question per round, "
    "never answer it yourself, and aim at the assumptions beneath the experts' positions."
)
EXPERT_SYSTEM = (
    "You are {name}, a {role}, on a Socratic expert panel. Answer the moderator: state your position, name the "
    "assumptions it rests on, from the surface down, and cite evidence you know with its design, sample and year, "
    "saying which of those assumptions it bears on."
)


def dialogue(system: str, turns: Sequence[tuple[str, str]], message: str) -> list[BaseMessage]:
    """``system``, then each earlier (message, reply) of the speaker, then this round's ``message``."""
    out: list[BaseMessage] = [SystemMessage(system)]
    for sent, reply in turns:
        out += [HumanMessage(sent), AIMessage(reply)]
    return [*out, HumanMessage(message)]


def moderator_message(
    *,
    query: str,
    round_num: int,
    question_type: str,
    target: str | None,
    depth: int,
    agreement: float,
    evidence_gaps: Sequence[str],
) -> str:
    lines = [
        f"Panel query: {query}",
        f"Round: {round_num}",
        f"Question type: {question_type}",
        f"Target assumption: {target or 'none'}",
        f"Depth so far: {depth}",
        f"Agreement so far: {agreement:.2f}" if agreement == agreement else "Agreement so far: too few answers to tell",
        f"Evidence gaps: {'; '.join(evidence_gaps) or 'none'}",
        "Write one Socratic question of this type for the panel. Reply with the question only.",
    ]
    return "\n".join(lines)


def asked(round_num: int, question_type: str) -> str:
    """An earlier round's message to the moderator, in a state recorded before questions kept theirs (``asked``)."""
    return f"Round: {round_num}\nQuestion type: {question_type}"


def expert_message(
    *,
    query: str,
    round_num: int,
    question: str,
    previous: Sequence[tuple[str, str]],
    earlier: Sequence[tuple[str, str]],
) -> str:
    lines = [f"Panel query: {query}"]
    if previous:
        lines.append("Answers in the previous round:")
        lines += [f"[{speaker}] {text}" for speaker, text in previous]
    lines.append(f"Round {round_num} question: {question}")
    if earlier:
        lines.append("Earlier answers this round:")
        lines += [f"[{speaker}] {text}" for speaker, text in earlier]
    lines.append("Your answer:")
    return "\n".join(lines)
