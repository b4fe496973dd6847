"""Budgets: a run stops starting episodes once it has spent one (``budget.episodes``, ``budget.tokens``,
``budget.seconds``).

Episodes already in flight finish and are written; the graphs' summaries cover the episodes played and say which
budget stopped them (``stopped_by``); the graphs cut short are not marked done, so ``resume=true`` with a larger
budget (or none) plays the rest, and its records are those of a run never stopped. One ``Spend`` counts a whole
run, every graph together; episodes a resumed run kept are not counted again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dialectica.sim.config.budget import Budget


@dataclass
class Spend:
    """What a run has spent so far, against its ``budget``; ``clock`` is injected (tests advance it by hand)."""

    budget: Budget
    clock: Callable[[], float] = time.monotonic
    episodes: int = 0
    tokens: int = 0
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def add(self, record: Mapping[str, Any]) -> None:
        """Counts one episode played (its record's ``usage.tokens_total``)."""
        self.episodes += 1
        self.tokens += int((record.get("usage") or {}).get("tokens_total") or 0)

    def spent(self) -> str | None:
        """The first budget spent (``episodes``, ``tokens``, ``seconds``), or None."""
        b = self.budget
        if b.episodes is not None and self.episodes >= b.episodes:
            return "episodes"
        if b.tokens is not None and self.tokens >= b.tokens:
            return "tokens"
        if b.seconds is not None and self.clock() - self.started >= b.seconds:
            return "seconds"
        return None
