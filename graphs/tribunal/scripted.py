"""Scripted evidence collectors and judges for ``graph=tribunal``.

Collectors replay a case's evidence after a short simulated delay; a collector planted
to hang takes ``graph.cast.hang_s``, and any collector crashes with the seeded chance
``participants.crash_rate`` (nothing crashes by default). Judges score each criterion
from its hidden true score, pulled by their persona (the prosecutor down, the defense
up, in proportion to the case's ``disagreement``) with a zeal drawn per episode, plus
seeded noise. Sent back by the Chief Justice, a judge rescores only the criteria named
in the feedback and gives up a share of its pull and its noise each time (a
persuadability drawn per episode), so re-evaluation tends to bring the bench together
without promising that one round is enough.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from dialectica.graphs.tribunal.nodes import TribunalDeps
from dialectica.sim.cast import CastRequest
from dialectica.sim.scripted import ScriptedChatModel, last_human

_PULL = {"prosecutor": -1.0, "defense": 1.0, "tech_lead": 0.0}
_FAVOURS = {
    "prosecutor": ("security_issue", "claim_unsupported", "test_gap"),
    "defense": ("claim_supported", "design_strength"),
    "tech_lead": ("design_strength", "test_gap", "security_issue", "claim_unsupported", "claim_supported"),
}
_NOISE = 0.5  # sd of a judge's first reading of a criterion, in score points
_ZEAL = (0.5, 2.0)  # range of the per-episode multiplier of a judge's persona pull
_GIVE = (0.0, 0.5)  # range of the share of pull and noise a judge drops each time the bench is sent back
_REEXAMINE = re.compile(r"Chief Justice: re-examine ([\w, -]+):")


def crashes(seed: int, collector_id: str, rate: float) -> bool:
    """Whether this episode's ``collector_id`` crashes: a seeded draw against ``rate``."""
    return random.Random(f"{seed}:{collector_id}:crash").random() < rate


def collector(spec: dict[str, Any], hang_s: float, crash: bool = False,
              sleep: Callable[[float], None] = time.sleep) -> Callable[[], list]:
    """A tool that returns the case's evidence for this collector after ``delay_s``; it raises when ``crash``
    and takes ``hang_s`` when the scenario plants a hang."""
    items = [{k: e[k] for k in ("id", "criterion", "goal", "found", "content", "location", "confidence", "tags")}
             for e in spec["evidence"]]

    def collect() -> list[dict[str, Any]]:
        if crash:
            sleep(spec["delay_s"])
            raise RuntimeError(f"{spec['id']} crashed while parsing the repository")
        sleep(hang_s if spec["fault"] == "hang" else spec["delay_s"])
        return [dict(item) for item in items]

    return collect


@dataclass
class ScriptedJudge:
    """One judge for one episode; ``zeal`` scales its persona's pull, ``give`` is the share of pull and noise
    it drops each time the bench is sent back."""

    name: str
    case: dict[str, Any]
    rng: random.Random
    zeal: float = 1.0
    give: float = 0.5
    sent_back: int = 0
    last: dict[str, int] = field(default_factory=dict)

    @classmethod
    def drawn(cls, name: str, case: dict[str, Any], rng: random.Random) -> ScriptedJudge:
        return cls(name, case, rng, zeal=rng.uniform(*_ZEAL), give=rng.uniform(*_GIVE))

    def _score(self, truth: int, keep: float) -> int:
        pull = _PULL[self.name] * 2.0 * self.case["disagreement"] * self.zeal * keep
        return min(5, max(1, round(truth + pull + self.rng.gauss(0, _NOISE * keep))))

    def reply(self, messages: Sequence[BaseMessage]) -> str:
        prompt = last_human(messages)
        reopened = _REEXAMINE.search(prompt)
        named = set(re.findall(r"[\w-]+", reopened[1])) if reopened else set()
        self.sent_back += bool(reopened)
        keep = (1 - self.give) ** self.sent_back
        lines = []
        for c in self.case["criteria"]:
            if reopened and c["id"] not in named and c["id"] in self.last:
                score = self.last[c["id"]]  # settled: the judge stands by its score
            else:
                score = self.last[c["id"]] = self._score(c["truth"], keep)
            own = [e for col in self.case["collectors"] for e in col["evidence"] if e["criterion"] == c["id"]]
            visible = [e for e in own if f"- {e['id']} [" in prompt]
            cited = [e for e in visible if set(e["tags"]) & set(_FAVOURS[self.name])] or visible[:1]
            if self.name == "defense" and score >= 4:  # the defense leans on claims even where the docs overstate
                cited += [e for e in visible if "claim_unsupported" in e["tags"] and e not in cited][:1]
            basis = cited[0]["content"] if cited else "the record is thin"
            verdict = {1: "fails", 2: "falls short", 3: "is adequate", 4: "is solid", 5: "is exemplary"}[score]
            lines.append(f"Criterion {c['id']}: score {score}. Cited: {', '.join(e['id'] for e in cited) or 'none'}. "
                         f"Argument: On {c['title'].lower()} the submission {verdict}, since {basis}.")
        return "\n".join(lines)


def _judge(name: str, case: dict[str, Any], seed: int) -> Callable[[], ScriptedChatModel]:
    return lambda: ScriptedChatModel(
        policy=ScriptedJudge.drawn(name, case, random.Random(f"{seed}:{name}")).reply, role=name)


def scripted_tribunal(request: CastRequest) -> TribunalDeps:
    case = request.scenario
    hang_s = request.options.hang_s
    return TribunalDeps(
        collectors={c["id"]: collector(c, hang_s, crashes(request.seed, c["id"], request.crash_rate), request.sleep)
                    for c in case["collectors"]},
        judges={name: request.system(name, _judge(name, case, request.seed)) for name in _PULL},
    )
