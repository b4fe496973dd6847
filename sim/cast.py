"""Who plays the participants and roles of a graph: a registry keyed by kind and graph."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from graphs.params import ConfigError
from sim.llm.casting import PARTICIPANT, SYSTEM, Voices
from sim.registry import Registry


@dataclass(frozen=True)
class CastRequest:
    """What a cast builder gets for one episode."""

    scenario: dict[str, Any]
    seed: int
    failure_rate: float = 0.0
    sleep: Callable[[float], None] = field(default=time.sleep)
    embed: Callable[[list[str]], Any] | None = None  # sentence embeddings, for graphs that retrieve
    datasets: Path = Path(__file__).resolve().parents[1] / "datasets"
    voices: Voices = field(default_factory=Voices)  # which model speaks for each role

    def system(self, role: str, scripted: Callable[[], BaseChatModel]) -> BaseChatModel:
        """The model of system role ``role``: ``scripted()`` unless the ``llm`` config gives it an LLM."""
        return self.voices.speaker(role, SYSTEM, self.seed, scripted)

    def participant(self, role: str, persona: str, name: str) -> BaseChatModel:
        """An LLM playing participant ``name`` (a ``role``), with ``persona`` as its system prompt."""
        return self.voices.speaker(role, PARTICIPANT, self.seed, None, persona=persona, name=name)


CASTS: Registry[Callable[[CastRequest], Any]] = Registry("participants")


def cast(kind: str, graph: str) -> Callable:
    """Registers a builder of a graph's deps for ``participants=kind``."""
    return CASTS.register(f"{kind}/{graph}")


def check(kind: str, graph: str) -> None:
    """Raises a ConfigError naming the valid choices when no ``kind`` cast exists for ``graph``."""
    load(graph)
    if f"{kind}/{graph}" not in CASTS:
        valid = sorted(name.split("/")[0] for name in CASTS if name.endswith(f"/{graph}"))
        raise ConfigError(f"unknown participants={kind!r} for graph {graph}; valid choices: {', '.join(valid)}")


def build_deps(kind: str, graph: str, request: CastRequest) -> Any:
    """Builds the graph's deps for one episode."""
    check(kind, graph)
    return CASTS.get(f"{kind}/{graph}")(request)


def load(graph: str) -> None:
    """Imports the cast modules of one graph (``sim/<kind>/<graph>.py``) so that they register."""
    for kind in ("scripted", "surrogate"):
        try:
            import_module(f"sim.{kind}.{graph}")
        except ModuleNotFoundError as exc:
            if exc.name != f"sim.{kind}.{graph}":
                raise
