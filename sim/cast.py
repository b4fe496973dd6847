"""Who plays the participants and roles of a graph: a registry keyed by kind and graph."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from graphs.params import ConfigError
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
    roles: dict[str, Any] = field(default_factory=dict)  # options of the models behind system roles


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
    for kind in ("scripted",):
        try:
            import_module(f"sim.{kind}.{graph}")
        except ModuleNotFoundError as exc:
            if exc.name != f"sim.{kind}.{graph}":
                raise
