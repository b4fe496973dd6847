"""Build episodes from config (the engine's second layer): each episode's plan, everything that decides its result.

A plan is a value: the same config and index give the same plan, and the same plan the same record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dialectica.sim.authoring.faults import FaultRates
from dialectica.sim.authoring.spec import CastOptions
from dialectica.sim.config.fork import Fork
from dialectica.sim.llm.casting import Voices

if TYPE_CHECKING:
    from dialectica.sim.config.typed import GraphRun, RunConfig


def episode_seed(seed: int, graph: str, index: int) -> int:
    """Independent, reproducible per-episode seed derived from the run seed."""
    entropy = [seed, index, *graph.encode()]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


@dataclass(frozen=True)
class EpisodePlan:
    """Everything that decides an episode's result."""

    graph: str
    index: int
    seed: int
    scenario: dict[str, Any]
    participants: str
    faults: FaultRates = field(default_factory=FaultRates)
    datasets: Path = Path(".")
    voices: Voices = field(default_factory=Voices)
    options: Any = field(default_factory=CastOptions)
    fork: Fork | None = None


def plan(run: GraphRun, cfg: RunConfig, index: int) -> EpisodePlan:
    """Episode ``index`` of graph ``run`` under ``cfg``: its seed, its scenario (the scenarios in turn), its cast."""
    name = run.spec.name
    return EpisodePlan(
        name,
        index,
        episode_seed(cfg.seed, name, index),
        run.scenarios[index % len(run.scenarios)],
        cfg.participants,
        cfg.faults,
        run.datasets,
        cfg.voices,
        run.options,
        fork=run.fork,
    )
