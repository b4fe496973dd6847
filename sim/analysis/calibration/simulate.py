"""Scripted episodes in process, for the fit: the graph's scripted cast over grid points, personas set by
a calibrated set, on the seeds and scenarios a run of the same ``seed`` would use."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dialectica.metrics import FullRecord
from dialectica.sim.config.calset import CalibratedSet
from dialectica.sim.config.typed import GraphRun
from dialectica.sim.engine.build import EpisodePlan, episode_seed
from dialectica.sim.engine.episode import run_episode
from dialectica.sim.records import to_line


def with_point(params: Any, point: Mapping[str, Any]) -> Any:
    """The graph's params with a grid point's values (``{"budget": 6}``)."""
    return dataclasses.replace(params, **point)


def simulate(
    run: GraphRun,
    points: Sequence[Mapping[str, Any]],
    episodes: int,
    seed: int,
    calset: CalibratedSet | None = None,
    embed: Callable[[list[str]], Any] | None = None,
    first: int = 0,
) -> list[list[FullRecord]]:
    """Records (as ``episodes.jsonl`` holds them) of ``episodes`` scripted episodes per grid point, episode
    indices ``first`` onwards; every point plays the same seeds and scenarios."""
    spec = run.spec
    scenarios = run.scenarios
    if calset is not None and spec.calibration is not None:
        scenarios = [calset.apply(s, spec.calibration) for s in scenarios]
    out = []
    for point in points:
        params = with_point(run.params, point)
        rows = []
        for index in range(first, first + episodes):
            plan = EpisodePlan(
                spec.name,
                index,
                episode_seed(seed, spec.name, index),
                scenarios[index % len(scenarios)],
                "scripted",
                datasets=run.datasets,
                options=run.options,
            )
            rows.append(json.loads(to_line(run_episode(spec, params, plan, embed))))  # exactly as the file holds it
        out.append(rows)
    return out
