"""Scripted committee members and chair for ``graph=committee``.

A member holds a stance, a confidence and the evidence it knows. It listens to the
statements in its prompt, weighs the evidence the others cite (by strength, against
its side), and moves one step (support -> nuanced -> oppose) with a chance set by its
persuadability; stubborn members never move. Its vote's rationale names its own strongest evidence for the side
it votes, or, with a chance set by its conformity (0 unless a persona or calibrated set gives one), the strongest
evidence for that side the deliberation cited, so that conforming members give one rationale. With
``participants.failure_rate`` a member's call raises (``dialectica.sim.authoring.faults``, its own seeded stream,
so the deliberation's draws stay as they are).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from dialectica.graph import CastRequest, Library, ScriptedChatModel, last_human
from dialectica.graphs.committee.nodes import CommitteeDeps

STRENGTH = {"high": 1.0, "medium": 0.6, "low": 0.3}
PHASE_PULL = {"opening": 0.0, "evidence": 0.6, "rebuttal": 1.0, "synthesis": 0.8, "vote": 0.0}
_HEARD = re.compile(r"^<([\w-]+)> \((\w+), round (\d+)\) (.*)$", re.MULTILINE)
_SAYS = {"support": "I support the proposal", "oppose": "I oppose the proposal", "nuanced": "My view is nuanced"}


def _short(text: str) -> str:
    first = re.split(r"(?<=[.!?])\s+", text.strip())[0].rstrip(".")
    return first[0].lower() + first[1:]


@dataclass
class ScriptedMember:
    persona: dict[str, Any]
    evidence: dict[str, dict[str, Any]]
    rng: random.Random
    position: str = field(init=False)
    confidence: float = field(init=False)
    lean: str | None = None

    def __post_init__(self) -> None:
        self.position = self.persona["stance"]
        self.confidence = self.persona["confidence"]

    def _side(self) -> str | None:
        return self.position if self.position != "nuanced" else self.lean

    def _mine(self, side: str | None, k: int) -> list[str]:
        own = [e for e in self.persona["evidence"] if side is None or self.evidence[e]["stance"] == side]
        own.sort(key=lambda e: -STRENGTH[self.evidence[e]["strength"]])
        return own[:k] or self.persona["evidence"][:1]

    def _pressure(self, heard: list[tuple[str, str, str]]) -> tuple[dict[str, float], list[str]]:
        """Strength of the distinct evidence others cited, per side, and those items strongest first."""
        mass = {"support": 0.0, "oppose": 0.0}
        cited = sorted(
            {
                d
                for member, _, text in heard
                if member != self.persona["id"]
                for d in re.findall(r"\[(d\d+)\]", text)
                if d in self.evidence
            }
        )
        for d in cited:
            mass[self.evidence[d]["stance"]] += STRENGTH[self.evidence[d]["strength"]]
        cited.sort(key=lambda d: -STRENGTH[self.evidence[d]["strength"]])
        return mass, cited

    def _move(self, mass: dict[str, float], phase: str) -> str | None:
        """Steps toward the side whose cited evidence outweighs this member's; returns that side."""
        if self.persona["stubborn"] or not PHASE_PULL[phase]:
            return None
        side = self._side()
        against = (
            "oppose" if side == "support" else "support" if side == "oppose" else max(sorted(mass), key=lambda s: mass[s])
        )
        push = mass[against] - 0.5 * mass.get(side or "", 0.0)
        if push <= 0 or self.rng.random() >= self.persona["persuadability"] * PHASE_PULL[phase] * min(1.0, push / 2.0):
            return None
        if self.position == "nuanced":
            self.position = against
        else:
            self.position, self.lean = "nuanced", against
        self.confidence = max(0.3, self.confidence - 0.1)
        return against

    def _rationale(self, side: str | None, cited: list[str]) -> str:
        """The evidence a vote rests on: the member's own strongest for ``side``, or with chance ``conformity``
        the strongest for it that others cited (no draw at conformity 0, so the authored cast's draws stay)."""
        heard = [d for d in cited if side is not None and self.evidence[d]["stance"] == side]
        conformity = self.persona.get("conformity", 0.0)
        if heard and conformity and self.rng.random() < conformity:
            return heard[0]
        return self._mine(side, 1)[0]

    def reply(self, messages: Sequence[BaseMessage]) -> str:
        prompt = last_human(messages)
        named = re.search(r"phase: (\w+)", prompt)
        assert named is not None, "a member prompt names its phase"
        phase = named.group(1)
        heard = [(m.group(1), m.group(2), m.group(4)) for m in _HEARD.finditer(prompt)]
        mass, cited = self._pressure(heard)
        moved = self._move(mass, phase)
        strongest = next((d for d in cited if self.evidence[d]["stance"] == moved), None)
        conf = f"Confidence: {round(self.confidence * 100)}%."
        side = self._side()
        if phase == "vote":
            vote = side or "abstain"
            best = self._rationale(side, cited)
            return (
                f"Vote: {vote}. {conf} Rationale: The strongest evidence is [{best}]: {_short(self.evidence[best]['text'])}."
            )
        if phase == "opening":
            cites = self._mine(side, 2)
            return (
                f"My position: {_SAYS[self.position]}. {conf} The key evidence is "
                f"{' and '.join(f'[{c}]' for c in cites)}: {_short(self.evidence[cites[0]]['text'])}."
            )
        if moved and strongest:
            return (
                f"I have changed my position because [{strongest}] shows that "
                f"{_short(self.evidence[strongest]['text'])}. {_SAYS[self.position]} now. {conf}"
            )
        if phase == "rebuttal":
            rivals = [m for m, _, t in heard if m != self.persona["id"] and _SAYS.get(self.position, "") not in t]
            target = rivals[-1] if rivals else None
            cite = self._mine(side, 1)[0]
            opener = (
                f"In reply to {target}: their evidence is weaker than it looks, and [{cite}] shows that "
                if target
                else f"Nobody has answered [{cite}], which shows that "
            )
            return f"{opener}{_short(self.evidence[cite]['text'])}. {_SAYS[self.position]} still. {conf}"
        if phase == "synthesis":
            return f"Common ground: we all want this decision to rest on evidence. {_SAYS[self.position]}. {conf}"
        cites = self._mine(side, 3)[1:] or self._mine(side, 1)
        return f"{_SAYS[self.position]} still. Further evidence: {' '.join(f'[{c}]' for c in cites)}. {conf}"


def chair_reply(messages: Sequence[BaseMessage]) -> str:
    prompt = last_human(messages)
    fields = dict(re.findall(r"^([A-Z][\w ]+): (.*)$", prompt, re.MULTILINE))
    dissent = [line[2:] for line in prompt.splitlines() if line.startswith("- ")]
    reached = fields.get("Consensus reached") == "True"
    score = float(fields.get("Consensus score", "0"))
    strength = "Strong" if reached and score >= 0.85 else "Moderate" if reached else "Weak"
    return "\n\n".join(
        [
            f"## Committee Recommendation\nThe committee's position is: {fields.get('Majority position', 'none')}.",
            f"## Strength of Recommendation\n{strength} (consensus score {score:.2f} after "
            f"{fields.get('Rounds of deliberation', '?')} rounds).",
            f"## Supporting Evidence\nMost cited: {fields.get('Most cited evidence', 'none')}.",
            "## Dissenting Views\n" + ("\n".join(f"- {d}" for d in dissent) or "None."),
            "## Caveats and Limitations\nScripted deliberation; positions follow the evidence cited in the room.",
            f"## Confidence Level\n{'High' if reached else 'Low'}.",
        ]
    )


def scripted_committee(request: CastRequest) -> CommitteeDeps:
    scenario = request.scenario
    roster = scenario["members"]
    evidence = {e["id"]: e for e in scenario["evidence"]}
    members: dict[str, BaseChatModel] = {
        m["id"]: request.scripted_participant(
            m["id"],
            ScriptedChatModel(
                role="member", policy=ScriptedMember(m, evidence, random.Random(f"{request.seed}:{m['id']}")).reply
            ),
        )
        for m in roster
    }
    chair = request.system("chair", lambda: ScriptedChatModel(policy=chair_reply, role="chair"))
    assert request.embed is not None  # the spec says embeds=True, so the harness passes the embedder
    return CommitteeDeps(
        members=members,
        roster=roster,
        chair=chair,
        library=Library(scenario["evidence"], request.embed),
        embed=request.embed,
    )
