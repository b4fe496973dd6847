"""Scripted learners and a scripted Sophia (Interlocutor, Synthesizer) for ``graph=maieutic``.

Learners react to what the tutor says: challenges raise frustration, concessions
lower it, grounded questions can move them to a better thesis. Personas set how
fast (datasets/maieutic/personas.yaml). The scripted tutor follows the Maieutic
Standard with a seeded lapse rate, and heeds the Critic's instructions most of the time.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from langchain_core.messages import BaseMessage

from dialectica.graph import CastRequest, Library, ScriptedChatModel, last_human
from dialectica.graphs.maieutic.nodes import MaieuticDeps


def _first_sentence(text: str) -> str:
    first = re.split(r"(?<=[.!?])\s+", text.strip())[0].rstrip(".")
    return first[0].lower() + first[1:] if first else first


@dataclass
class ScriptedLearner:
    """One simulated learner: a topic's ladder of theses and a persona's temperament.

    Every choice is a seeded draw from the persona's rates; no step of the script is fixed, so the same
    persona ends differently with another seed, and the tutor's moves (which its thresholds choose) shift
    the odds: challenges and ungrounded turns frustrate, concessions and scaffolding calm, a frustrated
    learner gives up sooner and shows it ("!", "this is exhausting"), grounded questions move it to a
    better thesis.
    """

    topic: dict[str, Any]
    persona: dict[str, Any]
    rng: random.Random
    rung: int = -1  # -1: the opening thesis; 0..n-1: the topic's revisions
    frustration: float = 0.0
    fatigue: float = 0.0
    turn: int = 0
    said: list[str] = field(default_factory=list)
    rejoined: bool = False

    @property
    def thesis(self) -> str:
        return str(self.topic["opening"] if self.rung < 0 else self.topic["revisions"][self.rung])

    def _react(self, tutor: str) -> bool:
        """Updates frustration from the tutor's words; returns whether it was a grounded question."""
        lowered = tutor.lower()
        p, draw = self.persona, self.rng.uniform
        if any(cue in lowered for cue in _CONCEDES):
            self.frustration -= 2.5
        elif any(cue in lowered for cue in _SCAFFOLDS):
            self.frustration -= 2.0
        if any(cue in lowered for cue in _CHALLENGES):
            self.frustration += draw(0.5, 3.0) * (1 - p["patience"])
        grounded = tutor.rstrip().endswith("?") and "<cite>" in tutor
        self.frustration += -0.3 if grounded else draw(0.0, 1.0) * (1 - p["patience"])
        self.frustration = min(10.0, max(0.0, self.frustration))
        return grounded

    def _state(self, text: str) -> str:
        self.said.append(self.thesis)
        return text

    def _tone(self, text: str) -> str:
        """A frustrated learner shows it, the more often and the louder the more frustrated it is (the Analyst
        reads "!" and complaints); a calm one sometimes acknowledges the tutor."""
        f, roll = self.frustration, self.rng.random
        if f >= 1.5 and roll() < f / 5:
            if f >= 3.5:
                text = f"Honestly, this is exhausting. {text}"
            text = f"{text.rstrip('.')}{'!!' if f >= 6 else '!'}"
        elif f < 1.5 and roll() < 0.25:
            text = f"I see. {text}"
        return text

    def reply(self, messages: Sequence[BaseMessage]) -> str:
        prompt = last_human(messages)
        p = self.persona
        roll = self.rng.random
        self.turn += 1
        self.fatigue += self.rng.uniform(0.0, 2.0 * p["fatigue_rate"])
        said = re.search(r"^Sophia said: (.*?)\s*(?:\nYour reply:|\Z)", prompt, re.MULTILINE | re.DOTALL)
        if said is None:
            return self._state(f"I think {self.thesis}.")
        grounded = self._react(said.group(1))
        if self.fatigue >= 1.0 and roll() < 0.5:
            return "I don't know anymore. I'm tired, can we stop?"
        if roll() < p["give_up"] * (0.5 + (self.frustration / 2) ** 2):
            return "I don't know. I give up."
        if self.frustration >= 6 and roll() < p["defensiveness"]:
            return f"Stop asking me trick questions! I already told you that {self.thesis}."
        if roll() < p["terseness"]:
            return "Why?"
        if self.rung >= 0 and self.frustration < 1.5 and roll() < p["openness"] * 0.25:
            return f"Yes, I am convinced now that {self.thesis}."  # at ease with a view it revised to: affirmed
        if len(self.said) >= 2 and roll() < p["circling"]:
            earlier = self.rng.choice(self.said[:-1])
            return self._tone(f"Maybe I was right at first: {earlier}.")
        if roll() < p["openness"] * (1.0 if grounded else 0.3):
            if not self.rejoined and roll() < 0.35:
                self.rejoined = True
                return f"No, that's wrong, because {self.topic['rejoinder']}."
            if self.rung + 1 < len(self.topic["revisions"]):
                self.rung += 1
                prefix = "Interesting. " if roll() < 0.5 else ""
                return self._state(f"{prefix}I think {self.thesis}.")
            return f"Yes, I am convinced now that {self.thesis}."  # the top of the ladder: affirmed
        if self.fatigue > 0.6:
            return self._tone(f"Whatever, I guess {self.thesis}.")
        return self._tone(f"I still think {self.thesis}.")


_CONCEDES = ("you are right", "let us simplify")
_SCAFFOLDS = ("as strongly as", "what example", "for example")
_CHALLENGES = (" but ", "strains", "however", "counter")
_DOC = re.compile(r"^\[(?P<id>[^\]]+)\] (?P<author>[^,]+), (?P<work>.+?) (?P<locus>\S+): (?P<text>.*)$", re.MULTILINE)


@dataclass
class ScriptedSophia:
    """Sophia's voices. ``discipline``: chance a first draft keeps each rule; ``compliance``:
    chance a redraft fixes what the Critic named."""

    rng: random.Random
    discipline: float = 0.8
    compliance: float = 0.85

    _CUES: ClassVar[dict[str, str]] = {"long": "too long", "question": "end with one question", "cite": "cite one"}

    def _lapse(self, check: str, named: str) -> bool:
        """Whether this draft breaks rule ``check``; ``named`` is the Critic's instruction, lower-cased."""
        keep = self.compliance if self._CUES[check] in named else self.discipline
        return self.rng.random() >= keep

    def interlocutor(self, messages: Sequence[BaseMessage]) -> str:
        prompt = last_human(messages)
        fields = dict(re.findall(r"^(Move|Thesis|Corrective instruction): (.*)$", prompt, re.MULTILINE))
        move, thesis = fields.get("Move", "EXAMINE"), fields.get("Thesis", "")
        named = fields.get("Corrective instruction", "").lower()
        docs = [m.groupdict() for m in _DOC.finditer(prompt)]
        doc = docs[0] if docs else None
        cite = f" <cite>{doc['id']}</cite>" if doc and not self._lapse("cite", named) else ""
        if move == "CONCEDE":
            parts = [
                "You are right to be frustrated; these questions are difficult.",
                f"Let us simplify: you hold that {thesis}.",
                "Can you give one case where that is clearly true?",
            ]
        elif move == "ELICIT":
            parts = [f"Let me put your view as strongly as I can: {thesis}.", "What example first made you think so?"]
        elif move == "CHALLENGE" and doc:
            parts = [
                f"You hold, with good reason, that {thesis}.",
                f"But {doc['author']} in {doc['work']}{cite} describes a case that strains it: "
                f"{_first_sentence(doc['text'])}.",
                "How would you answer that case?",
            ]
        elif move == "CHALLENGE":
            parts = [
                f"You hold, with good reason, that {thesis}.",
                "But can you think of a case where following it would be plainly wrong?",
            ]
        else:
            grounding = (
                [f"In {doc['work']} {doc['author']} argues that {_first_sentence(doc['text'])}{cite}."] if doc else []
            )
            parts = [
                f"Put at its strongest, your claim is that {thesis}.",
                *grounding,
                "If that holds, what follows from it?",
            ]
        if self._lapse("long", named):
            parts[1:1] = [
                "Let me add some context first.",
                "This question has a long history.",
                "Many have tried to answer it.",
            ]
        elif self._CUES["long"] in named:  # the Critic's "Too long. Cut to 1 sentence.", heeded
            parts = [self._one_sentence(move, thesis, doc, cite)]
        if self._lapse("question", named):
            parts[-1] = parts[-1][:-1] + "." if len(parts) == 1 else "Think about that."
        return " ".join(parts)

    @staticmethod
    def _one_sentence(move: str, thesis: str, doc: dict[str, str] | None, cite: str) -> str:
        if doc and move in ("EXAMINE", "CHALLENGE"):
            return f"How would you defend the view that {thesis} against {doc['author']} in {doc['work']}{cite}?"
        if move == "CONCEDE":
            return f"Can you give one case where it is clearly true that {thesis}?"
        if move == "ELICIT":
            return f"What example first made you think that {thesis}?"
        return f"If {thesis}, what follows from it?"

    def synthesizer(self, messages: Sequence[BaseMessage]) -> str:
        prompt = last_human(messages)
        fields = dict(re.findall(r"^(First thesis|Last thesis): (.*)$", prompt, re.MULTILINE))
        analogies, readings = prompt.split("Readings:")[0], prompt.split("Readings:")[-1]
        analogy = next(_DOC.finditer(analogies), None)
        works = [f"{m['work']} ({m['author']})" for m in _DOC.finditer(readings)][:3]
        parts = [
            f"We began with the view that {fields.get('First thesis', '')}, and we end with the view that "
            f"{fields.get('Last thesis', '')}."
        ]
        if analogy:
            parts.append(f"As {analogy['author']} shows in {analogy['work']}, {_first_sentence(analogy['text'])}.")
        if works:
            parts.append("For further reading: " + ", ".join(works) + ".")
        return " ".join(parts)


def scripted_maieutic(request: CastRequest) -> MaieuticDeps:
    """A scripted Sophia and a scripted learner for the scenario's topic and persona."""
    topic, persona = request.scenario["topic_spec"], request.scenario["persona_spec"]
    options = request.options
    sophia = ScriptedSophia(random.Random(f"{request.seed}:sophia"), options.discipline, options.compliance)
    learner = ScriptedLearner(topic, persona, random.Random(f"{request.seed}:learner"))
    assert request.embed is not None  # the spec says embeds=True, so the harness passes the embedder
    return MaieuticDeps(
        interlocutor=request.system(
            "interlocutor", lambda: ScriptedChatModel(policy=sophia.interlocutor, role="interlocutor")
        ),
        synthesizer=request.system("synthesizer", lambda: ScriptedChatModel(policy=sophia.synthesizer, role="synthesizer")),
        library=Library(request.scenario["canon"], request.embed),
        learner=request.scripted_participant("learner", ScriptedChatModel(policy=learner.reply, role="learner")),
        question=topic["question"],
        character=persona["character"],
    )
