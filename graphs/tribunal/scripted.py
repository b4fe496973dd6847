"""Scripted evidence collectors and judges for ``graph=tribunal``.

Collectors replay a case's evidence after a short simulated delay; a planted fault
makes one raise or hang. Judges score each criterion from its hidden true score,
pulled by their persona (the prosecutor down, the defense up, in proportion to the
case's ``disagreement``) and by seeded noise; the Chief Justice's feedback halves
the pull, so a re-evaluated bench agrees more.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


def collector(spec: dict[str, Any], hang_s: float, sleep: Callable[[float], None] = time.sleep) -> Callable[[], list]:
    """A tool that returns the case's evidence for this collector after ``delay_s``, or fails as planted."""
    items = [{k: e[k] for k in ("id", "criterion", "goal", "found", "content", "location", "confidence", "tags")}
             for e in spec["evidence"]]

    def collect() -> list[dict[str, Any]]:
        if spec["fault"] == "raise":
            sleep(spec["delay_s"])
            raise RuntimeError(f"{spec['id']} crashed while parsing the repository")
        sleep(hang_s if spec["fault"] == "hang" else spec["delay_s"])
        return [dict(item) for item in items]

    return collect


@dataclass
class ScriptedJudge:
    name: str
    case: dict[str, Any]
    rng: random.Random

    def reply(self, messages: Sequence[BaseMessage]) -> str:
        prompt = last_human(messages)
        pull = _PULL[self.name] * 2.0 * self.case["disagreement"]
        if "Chief Justice:" in prompt:
            pull /= 2
        lines = []
        for c in self.case["criteria"]:
            score = round(c["truth"] + pull + self.rng.gauss(0, 0.4))
            score = min(5, max(1, score))
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
    return lambda: ScriptedChatModel(policy=ScriptedJudge(name, case, random.Random(f"{seed}:{name}")).reply, role=name)


def scripted_tribunal(request: CastRequest) -> TribunalDeps:
    case = request.scenario
    hang_s = request.options.hang_s
    return TribunalDeps(
        collectors={c["id"]: collector(c, hang_s) for c in case["collectors"]},
        judges={name: request.system(name, _judge(name, case, request.seed)) for name in _PULL},
    )
