"""The fit: scripted persona values whose behaviour statistics and headline rates match an LLM reference run.

The reference is a ``dialectica validity`` directory: one grid of the graph's thresholds played by the LLM
(``<i>-llm/episodes.jsonl``) and by the authored scripted cast (``<i>-scripted/``) on the same seeds. The fit
uses the grid points in ``fit`` only; the others are held out. Each Optuna trial plays the scripted cast with
one set of knob values on the fit points (the reference's seeds and scenarios, so that the two casts meet
the same episodes) and scores it by :func:`loss`.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialectica.metrics import FullRecord
from dialectica.metrics import converged as is_converged
from dialectica.sim.authoring.calibration import Calibration, Knob
from dialectica.sim.authoring.params import ConfigError

RATE_SCALE = 0.15  # a headline rate's miss that weighs as much as one statistic off by its scale
ERROR_PENALTY = 100.0  # per share of episodes that raised: values that break the cast are never chosen
Records = list[FullRecord]


@dataclass(frozen=True)
class Reference:
    """An LLM reference run, read from a ``dialectica validity`` directory.

    Attributes:
        dir: The directory.
        points: The grid, in order.
        llm, scripted: Records per grid point, in episode order: LLM participants, authored scripted cast.
        seed: The run seed both casts used.
        overrides: The config overrides the reference ran with (besides its casts).
        model: What played the LLM cast (backend, model, preset, ...), from the LLM runs' config.
        settings: The graph's parameters at the first grid point, from the same config.
    """

    dir: Path
    graph: str
    points: list[dict[str, Any]]
    llm: list[Records]
    scripted: list[Records]
    seed: int
    overrides: list[str]
    model: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def episodes(self) -> int:
        return len(self.llm[0])


def converged(records: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """(converged, episodes) of ``records``."""
    rows = list(records)
    return sum(is_converged(r) for r in rows), len(rows)


def rate(records: Iterable[Mapping[str, Any]]) -> float:
    k, n = converged(records)
    return k / n if n else math.nan


def _records(path: Path) -> Records:
    from dialectica.sim.records import read  # lazy: start-up (pydantic)

    if not path.is_file():
        raise ConfigError(
            f"reference run incomplete: {path} is missing; rerun dialectica validity, or give another reference=DIR"
        )
    return sorted(read(path), key=lambda r: r["episode"])


def load_reference(path: Path, graph: str) -> Reference:
    """The reference at ``path`` (a ``dialectica validity`` directory of ``graph``)."""
    report = path / "validity.json"
    if not path.is_dir():
        raise ConfigError(f"reference={path} does not exist; give a `dialectica validity graph={graph}` directory")
    if not report.is_file() and (path / "0-llm").is_dir():
        raise ConfigError(
            f"reference={path} has no validity.json: its validity run did not finish; run the same command again "
            "(the call cache replays what it played), then give its new directory"
        )
    if not report.is_file():
        raise ConfigError(
            f"reference={path} is not a dialectica validity directory (no validity.json); give one that "
            f"`dialectica validity graph={graph}` wrote"
        )
    data = json.loads(report.read_text())
    if data.get("graph") != graph:
        raise ConfigError(f"reference={path} is a validity run of graph {data.get('graph')!r}, not {graph!r}")
    from dialectica.sim.analysis.validity import grid_points  # lazy: start-up (numpy, yaml)

    points = grid_points(data["grid"])
    overrides = [str(o) for o in data.get("overrides", [])]
    seed = next((int(o.split("=", 1)[1]) for o in overrides if o.startswith("seed=")), 0)
    config = path / "0-llm" / graph / "config.json"
    played = json.loads(config.read_text()) if config.is_file() else {}
    llm = played.get("llm", {})
    model = {
        k: llm.get(k)
        for k in ("backend", "preset", "model", "model_path", "base_url", "temperature", "max_tokens", "system_roles")
        if llm.get(k) is not None
    }
    return Reference(
        path,
        graph,
        points,
        [_records(path / f"{i}-llm" / "episodes.jsonl") for i in range(len(points))],
        [_records(path / f"{i}-scripted" / "episodes.jsonl") for i in range(len(points))],
        seed,
        overrides,
        model,
        dict(played.get("graph", {})),
    )


def split(n: int, fit: Sequence[int] | None = None) -> tuple[list[int], list[int]]:
    """(fit, held-out) grid indices: ``fit`` as given, else every other point from the first (0, 2, 4, ...)."""
    chosen = sorted(set(fit)) if fit is not None else list(range(0, n, 2))
    if not chosen or any(not 0 <= i < n for i in chosen):
        raise ConfigError(f"fit={','.join(map(str, fit or []))} must name grid indices in 0..{n - 1}")
    if n > 1 and len(chosen) == n:
        raise ConfigError(f"fit= leaves no grid point held out; give at most {n - 1} of the indices 0..{n - 1}")
    return chosen, [i for i in range(n) if i not in chosen]


def statistics(calibration: Calibration, records: Iterable[FullRecord]) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a statistic over no data is NaN
        return {k: float(v) for k, v in calibration.behaviour(list(records)).items()}


def loss(
    calibration: Calibration,
    target: Mapping[str, float],
    got: Mapping[str, float],
    target_rates: Sequence[float],
    got_rates: Sequence[float],
) -> float:
    """Mean squared miss of the behaviour statistics plus that of the headline rates per grid point, in one unit:
    a rate off by ``RATE_SCALE``, or a statistic off by ``RATE_SCALE`` times its scale, counts 1 (a statistic
    defined on one side only counts as off by its whole scale). Behaviour and outcome weigh alike."""
    misses = []
    for name, want in target.items():
        have = got.get(name, math.nan)
        if math.isnan(want) and math.isnan(have):
            continue
        scale = RATE_SCALE * calibration.scales.get(name, 1.0)
        misses.append((1 / RATE_SCALE) ** 2 if math.isnan(want) or math.isnan(have) else ((have - want) / scale) ** 2)
    rates = [((g - t) / RATE_SCALE) ** 2 for t, g in zip(target_rates, got_rates, strict=True)]
    return (sum(misses) / len(misses) if misses else 0.0) + (sum(rates) / len(rates) if rates else 0.0)


@dataclass(frozen=True)
class Fit:
    """The best knob values found, and how well they and the authored personas match on the fit points."""

    values: dict[str, float]
    loss: float
    authored_loss: float
    trials: list[dict[str, Any]]


def search(
    calibration: Calibration,
    play: Callable[[dict[str, float] | None], list[Records]],
    target: Mapping[str, float],
    target_rates: Sequence[float],
    trials: int,
    seed: int = 0,
    progress: Callable[[int, float], None] = lambda i, best: None,
    start: Mapping[str, float] | None = None,
    knobs: Sequence[Knob] | None = None,
    local: bool = False,
) -> Fit:
    """Optuna's TPE sampler (seeded) over the graph's knobs. ``play(values)`` gives the scripted records per fit
    point with the personas set to ``values`` (None: as authored); ``start`` is tried first (the authored
    personas' mean values, say), so that the search starts where the cast was written to be. ``knobs``: the
    space searched (the graph's knobs unless given; :func:`offset_knobs` for shifts of the authored values).
    ``local``: CMA-ES from ``start`` instead (a search that stays near a start already close to the reference,
    where TPE's wide draws over many knobs rarely land)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)  # enqueue_trial's

    def score(values: dict[str, float] | None) -> float:
        groups = play(values)
        played = [r for rows in groups for r in rows]
        errors = sum(r["termination_reason"] == "error" for r in played) / max(1, len(played))
        return float(ERROR_PENALTY * errors) + loss(
            calibration, target, statistics(calibration, played), target_rates, [rate(rows) for rows in groups]
        )

    def suggest(trial: Any, knob: Knob) -> float | int:
        if knob.integer:
            return int(trial.suggest_int(knob.name, int(knob.low), int(knob.high)))
        return knob.clip(trial.suggest_float(knob.name, knob.low, knob.high))

    space = tuple(knobs) if knobs is not None else calibration.knobs
    sampler = (
        optuna.samplers.CmaEsSampler(x0=dict(start or {}) or None, seed=seed, warn_independent_sampling=False)
        if local
        else optuna.samplers.TPESampler(seed=seed)
    )
    study = optuna.create_study(direction="minimize", sampler=sampler)
    if start:
        study.enqueue_trial({k.name: k.clip(start[k.name]) for k in space if k.name in start})
    history: list[dict[str, Any]] = []
    for i in range(trials):
        trial = study.ask()
        values = {k.name: suggest(trial, k) for k in space}
        value = score(values)
        study.tell(trial, value)
        history.append({"trial": i, "loss": value, **values})
        progress(i, study.best_value)
    best = {k.name: k.clip(study.best_params[k.name]) for k in space}
    return Fit(best, float(study.best_value), score(None), history)


def authored_personas(calibration: Calibration, scenarios: Iterable[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Each distinct persona of ``scenarios`` (by id) with the knob values its author wrote."""
    personas: dict[str, Mapping[str, Any]] = {}
    for scenario in scenarios:
        personas.update(calibration.personas(scenario))
    return {
        pid: {k.name: float(p[k.name]) for k in calibration.knobs if isinstance(p.get(k.name), int | float)}
        for pid, p in personas.items()
    }


def authored_mean(calibration: Calibration, scenarios: Iterable[dict[str, Any]]) -> dict[str, float]:
    """Each knob's mean over the distinct personas of ``scenarios``, as their authors wrote them."""
    personas = authored_personas(calibration, scenarios).values()
    out = {}
    for knob in calibration.knobs:
        values = [p[knob.name] for p in personas if knob.name in p]
        if values:
            out[knob.name] = knob.clip(sum(values) / len(values))
    return out


def offset_knobs(calibration: Calibration) -> tuple[Knob, ...]:
    """The search space of ``mode=offset``: per knob, a shift of up to its whole range either way."""
    return tuple(
        Knob(k.name, -(k.high - k.low), k.high - k.low, k.integer, f"added to each persona's {k.name}")
        for k in calibration.knobs
    )


def shifted(
    calibration: Calibration, authored: Mapping[str, Mapping[str, float]], offsets: Mapping[str, float]
) -> dict[str, dict[str, float]]:
    """Each persona's authored values plus the knob's offset, within the knob's range: zero offsets give the
    cast as written, and the personas keep their spread. A knob a persona does not set stays unset."""
    return {
        pid: {k.name: k.clip(values[k.name] + offsets.get(k.name, 0.0)) for k in calibration.knobs if k.name in values}
        for pid, values in authored.items()
    }
