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

Each judge's numbers are its persona mapping, ``scenario["judges"][name]`` (:data:`JUDGE_KEYS`), filled
from :data:`JUDGE_DEFAULTS` by the graph's ``prepare_scenario``; a scenario file may set its own, and a
calibrated set (``participants=calibrated``) overrides them.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from dialectica.graph import CastRequest, ConfigError, ScriptedChatModel, last_human
from dialectica.graphs.tribunal.nodes import TribunalDeps

_FAVOURS = {
    "prosecutor": ("security_issue", "claim_unsupported", "test_gap"),
    "defense": ("claim_supported", "design_strength"),
    "tech_lead": ("design_strength", "test_gap", "security_issue", "claim_unsupported", "claim_supported"),
}
JUDGE_KEYS = {
    "pull": "direction and size of the persona's pull, times 2 x the case's disagreement (prosecutor -1, defense +1)",
    "noise": "sd of a judge's first reading of a criterion, in score points",
    "zeal_low": "low end of the per-episode multiplier of the persona's pull (drawn uniformly up to zeal_high)",
    "zeal_high": "high end of the per-episode multiplier of the persona's pull",
    "give_low": "low end of the share of pull and noise dropped each time the bench is sent back (drawn per episode)",
    "give_high": "high end of that share (at most 1: nothing left)",
    "centre": "share of the way from a criterion's true score to the middle score 3 (0: reads the truth; 1: ignores it)",
    "stand": "chance a judge keeps its score on a criterion the Chief Justice reopened",
    "skip": "chance a judge's reply leaves a criterion unscored (the graph reads a neutral 3 that is no voice)",
}
_SHARED = {
    "noise": 0.5,
    "zeal_low": 0.5,
    "zeal_high": 2.0,
    "give_low": 0.0,
    "give_high": 0.5,
    "centre": 0.0,
    "stand": 0.0,
    "skip": 0.0,
}
JUDGE_DEFAULTS: dict[str, dict[str, float]] = {
    "prosecutor": {"pull": -1.0, **_SHARED},
    "defense": {"pull": 1.0, **_SHARED},
    "tech_lead": {"pull": 0.0, **_SHARED},
}
_BOUNDS = {
    "noise": (0.0, None),
    "give_low": (None, 1.0),
    "give_high": (None, 1.0),
    "centre": (0.0, 1.0),
    "stand": (0.0, 1.0),
    "skip": (0.0, 1.0),
}
_REEXAMINE = re.compile(r"Chief Justice: re-examine ([\w, -]+):")


def judge_personas(given: Any) -> dict[str, dict[str, float]]:
    """The judges' persona mappings: :data:`JUDGE_DEFAULTS` with a scenario's ``judges`` values (None: none)
    over them, checked.

    Raises:
        ConfigError: an unknown judge or key, a value that is no number or out of its range.
    """
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise ConfigError(f"judges must map judge names ({', '.join(JUDGE_DEFAULTS)}) to persona values")
    out = {}
    for name, defaults in JUDGE_DEFAULTS.items():
        values = given.get(name) or {}
        if not isinstance(values, dict):
            raise ConfigError(f"judges.{name} must map persona keys to numbers; valid keys: {', '.join(JUDGE_KEYS)}")
        out[name] = dict(defaults)
        for key, value in values.items():
            if key not in JUDGE_KEYS:
                raise ConfigError(f"judges.{name}.{key} is no judge key; valid keys: {', '.join(JUDGE_KEYS)}")
            low, high = _BOUNDS.get(key, (None, None))
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or value != value
                or (low is not None and value < low)
                or (high is not None and value > high)
            ):
                raise ConfigError(
                    f"judges.{name}.{key}={value!r} must be a number"
                    + (f" in [{low}, {high}]" if low is not None or high is not None else "")
                )
            out[name][key] = float(value)
    unknown = [str(n) for n in given if n not in JUDGE_DEFAULTS]
    if unknown:
        raise ConfigError(f"judges.{unknown[0]} is no judge; valid choices: {', '.join(JUDGE_DEFAULTS)}")
    return out


def crashes(seed: int, collector_id: str, rate: float) -> bool:
    """Whether this episode's ``collector_id`` crashes: a seeded draw against ``rate``."""
    return random.Random(f"{seed}:{collector_id}:crash").random() < rate


def collector(
    spec: dict[str, Any], hang_s: float, crash: bool = False, sleep: Callable[[float], None] = time.sleep
) -> Callable[[], list[Any]]:
    """A tool that returns the case's evidence for this collector after ``delay_s``; it raises when ``crash``
    and takes ``hang_s`` when the scenario plants a hang."""
    items = [
        {k: e[k] for k in ("id", "criterion", "goal", "found", "content", "location", "confidence", "tags")}
        for e in spec["evidence"]
    ]

    def collect() -> list[dict[str, Any]]:
        if crash:
            sleep(spec["delay_s"])
            raise RuntimeError(f"{spec['id']} crashed while parsing the repository")
        sleep(hang_s if spec["fault"] == "hang" else spec["delay_s"])
        return [dict(item) for item in items]

    return collect


@dataclass
class ScriptedJudge:
    """One judge for one episode; ``persona`` is its mapping (:data:`JUDGE_KEYS`), ``zeal`` scales its
    persona's pull, ``give`` is the share of pull and noise it drops each time the bench is sent back."""

    name: str
    case: dict[str, Any]
    rng: random.Random
    zeal: float = 1.0
    give: float = 0.5
    sent_back: int = 0
    last: dict[str, int] = field(default_factory=dict)
    persona: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.persona = {**JUDGE_DEFAULTS[self.name], **self.persona}

    @classmethod
    def drawn(cls, name: str, case: dict[str, Any], rng: random.Random) -> ScriptedJudge:
        """The judge with its zeal and give drawn for the episode, from the case's persona mapping (read
        afresh each episode, so a calibrated set applies)."""
        persona = {**JUDGE_DEFAULTS[name], **(case.get("judges") or {}).get(name, {})}
        zeal = rng.uniform(persona["zeal_low"], persona["zeal_high"])
        return cls(name, case, rng, zeal=zeal, give=rng.uniform(persona["give_low"], persona["give_high"]), persona=persona)

    def _score(self, truth: int, keep: float) -> int:
        p = self.persona
        pull = p["pull"] * 2.0 * self.case["disagreement"] * self.zeal * keep
        centred = truth + p["centre"] * (3 - truth)
        return int(min(5, max(1, round(centred + pull + self.rng.gauss(0, p["noise"] * keep)))))

    def _chance(self, key: str) -> bool:
        # no draw unless the persona's chance is above 0, so that a judge that never does plays today's seeds
        return self.persona[key] > 0 and self.rng.random() < self.persona[key]

    def reply(self, messages: Sequence[BaseMessage]) -> str:
        prompt = last_human(messages)
        reopened = _REEXAMINE.search(prompt)
        named = set(re.findall(r"[\w-]+", reopened[1])) if reopened else set()
        self.sent_back += bool(reopened)
        keep = (1 - self.give) ** self.sent_back
        lines = []
        for c in self.case["criteria"]:
            if self._chance("skip"):
                continue  # no line for this criterion: it keeps no new score
            if reopened and c["id"] not in named and c["id"] in self.last:
                score = self.last[c["id"]]  # settled: the judge stands by its score
            elif reopened and c["id"] in self.last and self._chance("stand"):
                score = self.last[c["id"]]  # reopened, but the judge will not move
            else:
                score = self.last[c["id"]] = self._score(c["truth"], keep)
            own = [e for col in self.case["collectors"] for e in col["evidence"] if e["criterion"] == c["id"]]
            visible = [e for e in own if f"- {e['id']} [" in prompt]
            cited = [e for e in visible if set(e["tags"]) & set(_FAVOURS[self.name])] or visible[:1]
            if self.name == "defense" and score >= 4:  # the defense leans on claims even where the docs overstate
                cited += [e for e in visible if "claim_unsupported" in e["tags"] and e not in cited][:1]
            basis = cited[0]["content"] if cited else "the record is thin"
            verdict = {1: "fails", 2: "falls short", 3: "is adequate", 4: "is solid", 5: "is exemplary"}[score]
            lines.append(
                f"Criterion {c['id']}: score {score}. Cited: {', '.join(e['id'] for e in cited) or 'none'}. "
                f"Argument: On {c['title'].lower()} the submission {verdict}, since {basis}."
            )
        return "\n".join(lines)


def _judge(name: str, case: dict[str, Any], seed: int) -> Callable[[], ScriptedChatModel]:
    return lambda: ScriptedChatModel(
        policy=ScriptedJudge.drawn(name, case, random.Random(f"{seed}:{name}")).reply, role=name
    )


def scripted_tribunal(request: CastRequest) -> TribunalDeps:
    case = request.scenario
    hang_s = request.options.hang_s
    return TribunalDeps(
        collectors={
            c["id"]: collector(c, hang_s, crashes(request.seed, c["id"], request.faults.crash), request.sleep)
            for c in case["collectors"]
        },
        judges={name: request.system(name, _judge(name, case, request.seed)) for name in JUDGE_DEFAULTS},
    )
