"""Prompts for committee members and the chair."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

MEMBER_SYSTEM = (
    "You are {name}, a committee member with expertise in {expertise}. Deliberate honestly and change your "
    "position when the evidence warrants it. Say 'I support' or 'I oppose' the proposal, or that your view is "
    "nuanced; give 'Confidence: NN%'; cite evidence by its id in brackets, like [d3]."
)
PHASE_TASK = {
    "opening": "Opening statement: your initial position, confidence and the 2-3 strongest pieces of evidence.",
    "evidence": "Evidence presentation: present further evidence; say if it changes your position and why.",
    "rebuttal": "Rebuttal: start with 'In reply to <member id>:' and answer the strongest opposing argument.",
    "synthesis": "Synthesis: name the common ground you see and restate your position.",
    "vote": "Final vote: write 'Vote: support', 'Vote: oppose' or 'Vote: abstain', then 'Confidence: NN%', "
    "then 'Rationale:' and why.",
}
CHAIR_SYSTEM = "You chair the committee. Write its recommendation from the deliberation summary; report dissent fairly."


def member_prompt(
    member: dict[str, Any],
    *,
    question: str,
    phase: str,
    round_num: int,
    evidence: Sequence[dict[str, Any]],
    heard: Sequence[dict[str, Any]],
) -> list[BaseMessage]:
    # What stays the same comes first and what changes last: a local model then re-evaluates only the tail.
    lines = [f"Question: {question}", "Evidence pool:"]
    lines += [f"[{d['id']}] {d['text']}" for d in evidence]
    if heard:
        lines.append("Statements so far:")
        lines += [f"<{s['member']}> ({s['phase']}, round {s['round']}) {s['text']}" for s in heard]
    lines += [f"Round {round_num}, phase: {phase}", PHASE_TASK[phase]]
    return [
        SystemMessage(MEMBER_SYSTEM.format(name=member["name"], expertise=member["expertise"])),
        HumanMessage("\n".join(lines)),
    ]


def chair_prompt(
    *,
    question: str,
    rounds: int,
    consensus: dict[str, Any],
    members: int,
    dissent: Sequence[dict[str, Any]],
    cited: Sequence[str],
) -> list[BaseMessage]:
    lines = [
        f"Question: {question}",
        f"Committee size: {members}",
        f"Rounds of deliberation: {rounds}",
        f"Majority position: {consensus.get('majority_position', 'none')}",
        f"Consensus score: {consensus.get('consensus_score', 0.0):.2f}",
        f"Consensus reached: {consensus.get('consensus_reached', False)}",
        f"Votes cast: {consensus.get('voices', 0)} of {members} (quorum {consensus.get('quorum', '?')})",
        f"Vote distribution: {consensus.get('vote_distribution', {})}",
        f"Most cited evidence: {', '.join(cited) or 'none'}",
        "Dissent:",
        *[f"- {d['member']} voted {d['vote']}: {d['rationale']}" for d in dissent],
        "Write the recommendation with sections: Committee Recommendation, Strength of Recommendation, "
        "Supporting Evidence, Dissenting Views, Caveats and Limitations, Confidence Level.",
    ]
    return [SystemMessage(CHAIR_SYSTEM), HumanMessage("\n".join(lines))]
