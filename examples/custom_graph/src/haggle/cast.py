"""Scripted buyer and seller: seeded concessions toward a private limit, said in words the graph must parse."""

from __future__ import annotations

import random
import re

from dialectica.graph import CastRequest, ScriptedChatModel, last_human
from haggle.graph import HaggleDeps


def _numbers(prompt: str) -> list[float]:
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", prompt)]


def trader(limit: float, step: float, rng: random.Random, selling: bool):
    """A policy that moves its last price by ``step`` (with seeded noise) toward the other side, never past ``limit``."""

    def reply(messages) -> str:
        first, second = _numbers(last_human(messages))[:2]
        mine, theirs = (first, second) if selling else (second, first)
        move = step * abs(mine - theirs) * rng.uniform(0.5, 1.5)
        price = max(limit, mine - move) if selling else min(limit, mine + move)
        return rng.choice(("I can do {p:.0f}.", "{p:.0f}, and that is my final word.", "How about {p:.0f}?")).format(p=price)

    return reply


def scripted_cast(request: CastRequest) -> HaggleDeps:
    s = request.scenario
    return HaggleDeps(
        buyer=ScriptedChatModel(
            role="buyer", policy=trader(s["buyer_limit"], s["buyer_step"], random.Random(f"{request.seed}:b"), selling=False)
        ),
        seller=ScriptedChatModel(
            role="seller",
            policy=trader(s["seller_limit"], s["seller_step"], random.Random(f"{request.seed}:s"), selling=True),
        ),
        item=s["item"],
    )
