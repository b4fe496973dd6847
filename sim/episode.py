"""One seeded episode: the graph's cast for this seed, one run through the compiled graph, a typed record."""

from __future__ import annotations

import re
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from dialectica.sim.cast import CastRequest, build_deps
from dialectica.sim.llm.casting import Voices
from dialectica.sim.meter import EpisodeMeter
from dialectica.sim.records import EpisodeRecord
from dialectica.sim.spec import CastOptions, Episode, GraphSpec
from dialectica.sim.termination import TerminationReason


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
    datasets: Path = Path(".")
    voices: Voices = field(default_factory=Voices)
    options: Any = field(default_factory=CastOptions)
    crash_rate: float = 0.0
    role_failure_rate: float = 0.0


# LangGraph notes a failed node's task with its run-time id, which no seed fixes ("During task with name 'x'
# and id '3ba5be76-...'"); dropped, so that the same seed gives the same error record.
_TASK_ID = re.compile(r" and id '[0-9a-f-]{36}'")


def _traceback(exc: BaseException) -> str:
    return _TASK_ID.sub("", "".join(traceback.format_exception(exc)))


def run_episode(spec: GraphSpec, params: Any, plan: EpisodePlan,
                embed: Callable[[list[str]], Any] | None = None) -> EpisodeRecord:
    """Runs one episode through the graph compiled once for the process; an exception becomes a record
    with reason ``error`` and its traceback."""
    meter = EpisodeMeter()
    graph_timings: dict[str, Any] = {}
    head = {"graph": plan.graph, "episode": plan.index, "seed": plan.seed, "scenario": plan.scenario["name"],
            "participants": plan.participants}
    t0 = time.perf_counter()
    try:
        request = CastRequest(plan.scenario, plan.seed, plan.failure_rate, embed=embed, datasets=plan.datasets,
                              voices=plan.voices, options=plan.options, crash_rate=plan.crash_rate,
                              role_failure_rate=plan.role_failure_rate)
        episode = Episode(build_deps(spec, plan.participants, request), params, plan.seed)
        compiled = spec.compiled()
        state = spec.initial_state(plan.scenario, params)
        config: dict[str, Any] = {"recursion_limit": spec.recursion_limit(params), "callbacks": [meter]}
        final = spec.play(compiled, episode, state, config) if spec.play else compiled.invoke(state, config, context=episode)
        outcome = spec.outcome(final, params, plan.scenario)
        endings = spec.endings()
        if not isinstance(outcome.termination, str) or (endings and outcome.termination not in endings):
            ending = str(outcome.termination) if isinstance(outcome.termination, str) else outcome.termination
            raise ValueError(f"graph {spec.name} ended an episode with {ending!r}, which it does "
                             f"not declare; declared: {', '.join(endings) or '(none: return a string)'}")
        reason = str(outcome.termination)
        body: dict[str, Any] = {
            "termination_reason": reason, "metrics": outcome.metrics, "per_round": outcome.per_round,
            "converged": spec.converges(reason) if outcome.converged is None else bool(outcome.converged),
            "transcript": outcome.transcript, "artifacts": outcome.artifacts, "labels": outcome.labels,
        }
        graph_timings = outcome.timings
    except Exception as exc:  # noqa: BLE001 - one failing episode must not lose the others
        body = {"termination_reason": TerminationReason.ERROR.value, "error": _traceback(exc)}
    timings = {
        "episode_seconds": time.perf_counter() - t0,
        "node_seconds": {node: list(times) for node, times in meter.node_seconds.items()},
        **meter.runtime(),
        **graph_timings,
    }
    try:
        return EpisodeRecord(**head, **body, timings=timings, usage=meter.summary())
    except ValidationError as exc:  # the graph's outcome broke the record's schema: an error, not a crash
        return EpisodeRecord(**head, termination_reason=TerminationReason.ERROR.value, timings=timings,
                             usage=meter.summary(), error=f"the episode's record is malformed: {exc}")
