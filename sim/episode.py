"""One seeded episode: build the graph with its cast, run it, and turn the result into a record."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from graphs.registry import GraphSpec
from sim.cast import CastRequest, build_deps
from sim.llm.casting import Voices
from sim.meter import EpisodeMeter
from sim.termination import TerminationReason


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
    failure_rate: float = 0.0
    datasets: Path = Path(__file__).resolve().parents[1] / "datasets"
    voices: Voices = field(default_factory=Voices)


def run_episode(spec: GraphSpec, params: Any, plan: EpisodePlan,
                embed: Callable[[list[str]], Any] | None = None) -> dict[str, Any]:
    """Runs one episode; an exception becomes a record with reason ``error`` and its traceback."""
    meter = EpisodeMeter()
    graph_timings: dict[str, Any] = {}
    record: dict[str, Any] = {
        "graph": plan.graph, "episode": plan.index, "seed": plan.seed, "scenario": plan.scenario["name"],
        "participants": plan.participants,
    }
    t0 = time.perf_counter()
    try:
        request = CastRequest(plan.scenario, plan.seed, plan.failure_rate, embed=embed, datasets=plan.datasets,
                              voices=plan.voices)
        deps = build_deps(plan.participants, plan.graph, request)
        compiled = spec.build(deps, params)
        state = spec.initial_state(plan.scenario, params)
        config = {"recursion_limit": spec.recursion_limit(params), "callbacks": [meter]}
        final = spec.play(compiled, deps, state, config, params) if spec.play else compiled.invoke(state, config)
        outcome = spec.outcome(final, params, plan.scenario)
        record.update(
            termination_reason=outcome.termination.value, metrics=outcome.metrics, per_round=outcome.per_round,
            transcript=outcome.transcript, artifacts=outcome.artifacts, labels=outcome.labels,
        )
        graph_timings = outcome.timings
    except Exception as exc:  # noqa: BLE001 - one failing episode must not lose the others
        record.update(
            termination_reason=TerminationReason.ERROR.value, metrics={}, per_round=[], transcript=[], artifacts={},
            error="".join(traceback.format_exception(exc)),
        )
    record["timings"] = {
        "episode_seconds": time.perf_counter() - t0,
        "node_seconds": {node: list(times) for node, times in meter.node_seconds.items()},
        **meter.runtime(),
        **graph_timings,
    }
    record["usage"] = meter.summary()
    return record
