"""Surrogate committee members: an LLM per member, told its stance, confidence and evidence."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dialectica.graph import CastRequest, bullet, degree
from dialectica.graphs.committee.nodes import CommitteeDeps
from dialectica.graphs.committee.scripted import scripted_committee

_STANCE = {"support": "support the proposal", "oppose": "oppose the proposal", "nuanced": "see merit on both sides"}


def member_persona(member: dict[str, Any], evidence: dict[str, dict[str, Any]], question: str) -> str:
    known = [f"[{e}] {evidence[e]['text']}" for e in member["evidence"] if e in evidence]
    temper = (
        "You never change your position."
        if member.get("stubborn")
        else (f"You are {degree(member['persuadability'], 'hard', 'possible', 'easy')} to persuade with strong evidence.")
    )
    return "\n".join(
        [
            f"You are {member['name']}, an expert in {member['expertise']}, on a committee deciding: {question}",
            f"You {_STANCE[member['stance']]}, with about {round(member['confidence'] * 100)}% confidence. {temper}",
            "Evidence you know best:",
            bullet(known or ["none"]),
        ]
    )


def surrogate_committee(request: CastRequest) -> CommitteeDeps:
    """The scripted committee with each member replaced by an LLM playing that member."""
    scenario = request.scenario
    evidence = {e["id"]: e for e in scenario["evidence"]}
    members = {
        m["id"]: request.participant("member", member_persona(m, evidence, scenario["question"]), m["id"])
        for m in scenario["members"]
    }
    return replace(scripted_committee(request), members=members)
