"""How many episodes a sequential sweep saves, and how often it chooses otherwise than the fixed design.

The truth is cheap with scripted participants: ``bank`` plays each configuration of a grid many episodes once
(seeded, so episode ``i`` of every configuration shares its seed), and each simulated sweep draws its own stream
of episodes from the bank (a permutation of the episode columns: another seed's episodes). On that stream the
fixed design plays ``max_episodes`` of every configuration and picks by point estimate; the sequential design
(``metrics.sequential.Race``) plays rounds of ``step`` episodes and stops when decided. ``race_figures`` reports
the share of the fixed design's episodes the sequential one used, how often the two chose differently, and how
often the race was decided (not capped) on another choice than the whole bank's, which must stay under ``delta``.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dialectica.metrics.sequential import Race


@dataclass(frozen=True)
class Bank:
    """Episode outcomes of a grid: ``converged[k, i]`` for configuration ``k`` (``labels[k]``), episode ``i``."""

    graph: str
    labels: list[str]
    converged: np.ndarray

    @property
    def rates(self) -> list[float]:
        return [float(r) for r in self.converged.mean(axis=1)]


def bank(
    graph: str,
    key: str,
    values: Sequence[Any],
    episodes: int,
    seed: int = 11,
    echo: Callable[[str], None] = print,
    extra: Sequence[str] = (),
) -> Bank:
    """Plays ``episodes`` scripted episodes of ``graph`` at each ``graph.<key>`` value, on the same seeds
    (``extra``: more overrides)."""
    from dialectica.sim.config.loader import load  # lazy: start-up (omegaconf, yaml)
    from dialectica.sim.engine.runner import run  # lazy: start-up (omegaconf, yaml)
    from dialectica.sim.records import read  # lazy: start-up (pydantic)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for value in values:
            out = Path(tmp) / f"{key}={value}"
            echo(f"{graph}: {key}={value}, {episodes} scripted episodes")
            given = [f"graph={graph}", "participants=scripted", "tracking=none", "embeddings=false"]
            given += ["view.enabled=false", "progress=false", f"episodes={episodes}", f"seed={seed}", *extra]
            run(load(given, out_dir=out, values={f"graph.{key}": value}), echo=lambda _: None)
            by_episode = {r["episode"]: bool(r["converged"]) for r in read(out / "episodes.jsonl", graph, keep=False)}
            rows.append([by_episode[i] for i in range(episodes)])
    return Bank(graph, [f"{key}={v}" for v in values], np.asarray(rows, dtype=bool))


def fixed_choice(converged: np.ndarray, rule: str, floor: float | None) -> int | None:
    """The fixed design's pick from its episodes (``converged[k, i]``), by point estimate."""
    rates = converged.mean(axis=1)
    if rule == "best":
        return int(np.argmax(rates))  # the first of equals, as Race.choice
    assert floor is not None
    return next((k for k, r in enumerate(rates) if r >= floor), None)


def race(converged: np.ndarray, rule: str, delta: float, max_episodes: int, step: int, floor: float | None = None) -> Race:
    """One sequential sweep over the stream ``converged[k, i]``, in rounds of ``step`` episodes."""
    state = Race(converged.shape[0], rule=rule, delta=delta, max_episodes=max_episodes, floor=floor)
    played = 0
    while not state.decided:
        upto = min(played + step, max_episodes)
        for k in state.active:
            state.add(k, converged[k, played:upto])
        played = upto
        state.update()
    return state


def race_figures(
    data: Bank,
    rule: str = "best",
    delta: float = 0.05,
    max_episodes: int = 300,
    step: int = 10,
    sweeps: int = 100,
    floor: float | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """``sweeps`` simulated sweeps, each on its own draw of episodes from the bank."""
    rng = np.random.default_rng(seed)
    total = data.converged.shape[1]
    if total < max_episodes:
        raise ValueError(f"the bank has {total} episodes a configuration; max_episodes={max_episodes} needs as many")
    truth = fixed_choice(data.converged, rule, floor)  # the whole bank's choice
    shares, same, wrong, decided_at = [], 0, 0, []
    for _ in range(sweeps):
        stream = data.converged[:, rng.permutation(total)[:max_episodes]]
        state = race(stream, rule, delta, max_episodes, step, floor)
        same += state.choice() == fixed_choice(stream, rule, floor)
        wrong += state.settled and state.choice() != truth
        shares.append(state.episodes_used / (max_episodes * stream.shape[0]))
        decided_at.append([state.dropped_at.get(k, len(state.outcomes[k])) for k in range(stream.shape[0])])
    return {
        "graph": data.graph,
        "configurations": data.labels,
        "rates": data.rates,
        "rule": rule,
        "floor": floor,
        "delta": delta,
        "max_episodes": max_episodes,
        "step": step,
        "sweeps": sweeps,
        "same_choice": same / sweeps,
        "truth": data.labels[truth] if truth is not None else None,
        "settled_wrong": wrong / sweeps,  # decided by the bounds, on another choice than the whole bank's: <= delta
        "share_used_mean": float(np.mean(shares)),
        "share_used_max": float(np.max(shares)),
        "decided_at_median": [float(v) for v in np.median(np.asarray(decided_at), axis=0)],
    }


def lines(figures: dict[str, Any]) -> list[str]:
    """The figures as a few readable lines."""
    rates = ", ".join(f"{c} {r:.2f}" for c, r in zip(figures["configurations"], figures["rates"], strict=True))
    rule = figures["rule"] + (f" (floor {figures['floor']})" if figures["floor"] is not None else "")
    return [
        f"{figures['graph']}: {rates}; rule {rule}, delta {figures['delta']}, {figures['sweeps']} sweeps",
        f"  same choice as the fixed {figures['max_episodes']}-episode design: {figures['same_choice']:.0%}",
        f"  decided on another choice than the whole bank's ({figures['truth']}): {figures['settled_wrong']:.0%}",
        f"  episodes used / fixed design: mean {figures['share_used_mean']:.0%}, max {figures['share_used_max']:.0%}",
        "  episodes at which each configuration was decided (median): "
        + ", ".join(f"{c} {n:.0f}" for c, n in zip(figures["configurations"], figures["decided_at_median"], strict=True)),
    ]


def dump(figures: Sequence[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(list(figures), indent=1))
