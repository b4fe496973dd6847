"""Scripted panel experts and moderator for ``graph=socratic_panel``.

Experts hold a stance (claims), chains of assumptions and evidence from their
scenario. They speak natural language and react to what they read in the
prompt: the moderator's question and their peers' answers. Stubbornness and
persuadability decide how fast they move, openness how deep they dig.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from dialectica.graph import CastRequest, ScriptedChatModel, last_human
from dialectica.graphs.socratic_panel.nodes import Expert, PanelDeps
from dialectica.graphs.socratic_panel.reading import EVIDENCE_DESIGNS

_DESIGN = {value: cue for cue, value in EVIDENCE_DESIGNS.items()}
_BIAS_WORD = {"high": "industry-funded", "medium": "unblinded", "low": "independent"}
# How much each kind of question moves an expert toward the panel (perspective questions most).
_MOVE = {"clarification": 0.5, "reason": 0.8, "assumption": 0.8, "evidence": 1.0, "perspective": 1.6, "implication": 1.2}
_FIRM = ("I am convinced that", "My position is clearly that", "I firmly hold that")
_OPEN = ("My view is that", "I would argue that", "The central point is that")
_HEDGED = ("I suspect that", "Tentatively I think that", "Perhaps the answer is that")


def question_type(question: str) -> str:
    """What a question asks for, read from its wording."""
    # The target's own words ("adherence data as evidence") must not decide the type.
    q = re.sub(r"assumption that [^?.]*", "assumption that X", question.lower())
    for qtype, cues in (
        ("evidence", ("evidence", "how do we know", "data")),
        ("perspective", ("perspective", "colleague", "disagree")),
        ("assumption", ("assum", "beneath", "taking for granted", "take for granted")),
        ("implication", ("implication", "follows", "consequence")),
        ("clarification", ("clarify", "what exactly", "mean")),
    ):
        if any(cue in q for cue in cues):
            return qtype
    return "reason"


@dataclass
class ScriptedExpert:
    """One simulated expert; ``reply`` is the policy of its ScriptedChatModel."""

    persona: dict[str, Any]
    scenario: dict[str, Any]
    rng: random.Random
    claims: list[str] = field(init=False)
    revealed: dict[str, int] = field(init=False)
    cited: set[str] = field(init=False)
    objections: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.claims = list(self.persona["claims"])
        self.chains = {root: self._chain(root) for root in self.persona["assumptions"]}
        self.revealed = {root: 0 for root in self.chains}
        self.cited = set()
        self.objections = {a: "silent" for a in self.persona.get("rejects", [])}
        self.texts = {c["id"]: c["text"] for c in self.scenario["claims"]}
        self.assumptions = {a["id"]: a for a in self.scenario["assumptions"]}
        self.evidence = [e for e in self.scenario["evidence"] if e["id"] in self.persona["evidence"]]

    def _chain(self, root: str) -> list[str]:
        chain = [root]
        while child := next((a["id"] for a in self.scenario["assumptions"] if a["parent"] == chain[-1]), None):
            chain.append(child)
        return chain

    @property
    def _yield(self) -> float:
        return float(self.persona["persuadability"] * (1 - self.persona["stubbornness"]))

    # --- reading the prompt -------------------------------------------------
    def _peer_answers(self, prompt: str) -> list[str]:
        """Answers of the other experts visible in the prompt (this round and the last)."""
        return [line.lower() for line in prompt.splitlines() if line.startswith("[")]

    def _persuade(self, answers: list[str], qtype: str) -> list[str]:
        """Moves toward the majority: adopts claims most peers voice, drops claims few share.

        Returns the ids of adopted claims.
        """
        if not answers:
            return []
        factor = _MOVE[qtype] * (1.2 if any("bears on the assumption" in a for a in answers) else 1.0)
        pull = self._yield * factor
        support = {cid: sum(text in a for a in answers) / len(answers) for cid, text in self.texts.items()}
        adopted = []
        for cid in self.texts:
            if cid not in self.claims and support[cid] > 0 and self.rng.random() < min(1.0, 2 * pull * support[cid]):
                self.claims.append(cid)
                adopted.append(cid)
            elif (
                cid in self.claims
                and support[cid] < 0.5
                and len(self.claims) > 1
                and self.rng.random() < pull * (1 - support[cid])
            ):
                self.claims.remove(cid)
        return adopted

    # --- speaking -------------------------------------------------------------
    def _frame(self) -> str:
        stubborn = self.persona["stubbornness"]
        pool = _FIRM if stubborn >= 0.6 else _HEDGED if self.persona["persuadability"] >= 0.75 else _OPEN
        return self.rng.choice(pool)

    def _evidence_sentence(self, item: dict[str, Any], assumption: str) -> str:
        design = _DESIGN[(item["source_type"], item["strength"])]
        sample = f" of {item['sample_size']:,} {item['unit']}" if item.get("sample_size") else ""
        return (
            f"An {_BIAS_WORD[item['bias_risk']]} {design}{sample} by {item['citation']} in {item['year']} "
            f"found that {item['finding']}, which bears on the assumption that {assumption}."
        )

    def _opinion_sentence(self, assumption: str) -> str:
        return (
            f"Speaking from experience as a {self.persona['role']}, my expert panel view is that it holds, "
            f"which bears on the assumption that {assumption}."
        )

    def _reveal(self, root: str) -> list[str]:
        chain, depth = self.chains[root], self.revealed[root]
        if depth >= len(chain):
            return []
        self.revealed[root] = depth + 1
        text = self.assumptions[chain[depth]]["text"]
        if depth == 0:
            form = self.rng.choice(
                ("My position rests on the assumption that {t}.", "Implicitly we take for granted that {t}.")
            )
            out = [form.format(t=text)]
        else:
            deeper = "more fundamental" if depth >= 3 else "deeper"
            parent = self.assumptions[chain[depth - 1]]["text"]
            out = [f"The assumption that {parent} in turn rests on the {deeper} assumption that {text}."]
        out += self._cite(chain[depth], chance=self.persona["verbosity"])
        return out

    def _cite(self, aid: str, chance: float) -> list[str]:
        text = self.assumptions[aid]["text"]
        known = [e for e in self.evidence if e["assumption"] == aid and e["id"] not in self.cited]
        out = []
        for item in known:
            if self.rng.random() < chance:
                self.cited.add(item["id"])
                out.append(self._evidence_sentence(item, text))
        if not known and aid not in self.cited and self.rng.random() < chance * self.persona["openness"]:
            self.cited.add(aid)
            out.append(self._opinion_sentence(text))
        return out

    def _target_root(self, question: str) -> str:
        q = question.lower()
        for root, chain in self.chains.items():
            if any(self.assumptions[a]["text"] in q for a in chain):
                return str(root)
        return str(min(self.chains, key=lambda r: (self.revealed[r] >= len(self.chains[r]), self.revealed[r], r)))

    def _dig(self, qtype: str, question: str) -> list[str]:
        openness = self.persona["openness"]
        if qtype == "assumption":
            root = self._target_root(question)
            out = self._reveal(root)
            return out + (self._reveal(root) if self.rng.random() < openness else [])
        if qtype == "evidence":
            revealed = [a for r, c in self.chains.items() for a in c[: self.revealed[r]]]
            return [s for a in revealed for s in self._cite(a, chance=0.5 + 0.5 * self.persona["verbosity"])]
        if self.rng.random() < 0.5 * openness:
            return self._reveal(self._target_root(question))
        return []

    def _object(self, peers: str, qtype: str) -> list[str]:
        """Objects to contested assumptions once peers voice them; evidence on them wins the objector over."""
        out = []
        for aid, state in self.objections.items():
            text = self.assumptions[aid]["text"]
            if state == "silent" and text in peers:
                self.objections[aid] = "objecting"
                out.append(f"I do not accept the assumption that {text}.")
            elif state == "objecting":
                cited = peers.count(f"bears on the assumption that {text}")
                if self.rng.random() < self._yield * _MOVE[qtype] + 0.25 * cited:
                    self.objections[aid] = "accepted"
                    out.append(f"On reflection I now accept the assumption that {text}.")
        return out

    def _defend(self, peers: str) -> list[str]:
        """Answers a peer's objection to one of my revealed assumptions with my evidence on it."""
        out = []
        for root, chain in self.chains.items():
            for aid in chain[: self.revealed[root]]:
                text = self.assumptions[aid]["text"]
                if f"not accept the assumption that {text}" in peers:
                    out += [self._evidence_sentence(e, text) for e in self.evidence if e["assumption"] == aid]
        return out

    def reply(self, messages: Sequence[BaseMessage]) -> str:
        # This draw once decided a simulated timeout (now ``participants.failure_rate``, drawn apart in
        # dialectica.sim.authoring.faults); it stays, so that a seeded expert says what it always said.
        self.rng.random()
        prompt = last_human(messages)
        match = re.search(r"^Round \d+ question: (.*)$", prompt, re.MULTILINE)
        question = match.group(1) if match else prompt
        qtype = question_type(question)
        answers = self._peer_answers(prompt)
        peers = "\n".join(answers)
        adopted = self._persuade(answers, qtype)
        parts = [
            (
                f"I now agree with my colleagues that {self.texts[c]}."
                if c in adopted
                else f"{self._frame()} {self.texts[c]}."
            )
            for c in self.claims
        ]
        parts += self._object(peers, qtype)
        parts += self._defend(peers)
        parts += self._dig(qtype, question)
        if self.persona["verbosity"] < 0.4 and len(parts) > 3:
            parts = parts[:3]
        return " ".join(parts)


_QUESTIONS = {
    "clarification": (
        "Let us clarify terms. What exactly is your position on this question, and what do you mean by it?",
        "Before we go further, what exactly do you mean, and where do you stand?",
    ),
    "assumption": (
        "What assumption lies beneath the assumption that {t}? What are we taking for granted there?",
        "Dig beneath the assumption that {t}: what does it itself assume?",
    ),
    "evidence": (
        "What evidence bears on the assumption that {t}? How do we know it holds?",
        "How do we know the assumption that {t} is true? Cite the evidence and its quality.",
    ),
    "perspective": (
        "Consider your colleagues' perspective on the assumption that {t}. Where do you still disagree, and why?",
        "How does your colleagues' perspective change your view? Where do you disagree?",
    ),
    "implication": ("If we accept where the panel now stands, what follows? What are the implications for the decision?",),
    "reason": ("Why do you hold that view? What is your reason?",),
}
_OPEN_ASSUMPTION = "What assumptions does your position rest on? What are we taking for granted?"
_OPEN_EVIDENCE = "What evidence do we have for the assumptions named so far? How do we know they hold?"


@dataclass
class ScriptedModerator:
    """Phrases the question the graph asked for, from the labelled lines of its prompt."""

    rng: random.Random

    def reply(self, messages: Sequence[BaseMessage]) -> str:
        prompt = last_human(messages)
        fields = dict(re.findall(r"^(Question type|Target assumption): (.*)$", prompt, re.MULTILINE))
        qtype = fields.get("Question type", "reason")
        target = fields.get("Target assumption", "none")
        if target == "none" and qtype in ("assumption", "evidence"):
            return _OPEN_ASSUMPTION if qtype == "assumption" else _OPEN_EVIDENCE
        templates = _QUESTIONS.get(qtype, _QUESTIONS["reason"])
        if target == "none":
            templates = tuple(t for t in templates if "{t}" not in t) or _QUESTIONS["reason"]
        return self.rng.choice(templates).format(t=target)


def scripted_panel(request: CastRequest) -> PanelDeps:
    """A seeded scripted moderator and one scripted expert per persona of the scenario; an expert's calls fail
    at ``participants.failure_rate``, the moderator's at ``participants.role_failure_rate``."""
    scenario = request.scenario
    moderator = ScriptedModerator(random.Random(f"{request.seed}:moderator"))
    experts = {p["id"]: ScriptedExpert(p, scenario, random.Random(f"{request.seed}:{p['id']}")) for p in scenario["experts"]}
    return PanelDeps(
        moderator=request.system("moderator", lambda: ScriptedChatModel(policy=moderator.reply, role="moderator")),
        experts={
            pid: request.scripted_participant(pid, ScriptedChatModel(policy=e.reply, role="expert"))
            for pid, e in experts.items()
        },
        roster=[Expert(p["id"], p["name"], p["role"]) for p in scenario["experts"]],
        sleep=request.sleep,
    )
