"""A sweep played in rounds until its choice is decided (``dialectica sequential``).

Every configuration of the grid is one run directory (``<out>/<i>``) on the same seed, so episode ``i`` of each
shares its seed and scenario. Each round resumes every configuration still in the race with ``step`` more episodes
(``resume=true`` with more episodes plays only the missing ones); ``metrics.sequential.Race`` then drops the
configurations that are decided out. At the end each configuration's MLflow run is logged once, over the episodes
it played, and ``sequential.json`` says what was chosen, at which episode each configuration was decided, and how
many episodes the fixed design (every configuration ``max_episodes`` times) would have played.

``budget.*`` bounds the whole race, every configuration together: a round starts only while none is spent, so a
race may pass its budget by one round at most; one stopped so is not decided (``stopped_by``), and its choice is
the point estimates'.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dialectica.metrics import Record
from dialectica.metrics import converged as is_converged
from dialectica.metrics.sequential import Race
from dialectica.sim import records
from dialectica.sim.config.budget import Budget
from dialectica.sim.config.typed import RunConfig
from dialectica.sim.engine import checkpoint
from dialectica.sim.engine.budget import Spend
from dialectica.sim.engine.runner import run


@dataclass(frozen=True)
class Rules:
    """How the race decides: ``rule`` (``best`` or ``floor``), the error level ``delta``, the fixed design's
    ``max_episodes``, ``step`` episodes a round, and the ``floor`` rate."""

    rule: str = "best"
    delta: float = 0.05
    max_episodes: int = 300
    step: int = 10
    floor: float | None = None


def _played(cfg: RunConfig, start: int) -> list[Record]:
    """The run's records of episodes ``start`` to ``cfg.episodes``, in episode order."""
    name = cfg.graphs[0].spec.name
    by_episode = {r["episode"]: r for r in records.read(cfg.out_dir / records.FILE, name, keep=False)}
    return [by_episode[i] for i in range(start, cfg.episodes)]


def _quiet(cfg: RunConfig, episodes: int) -> RunConfig:
    """A round: ``episodes`` in all, resumed, no MLflow run, pages or progress bar (the last round logs), and no
    budget of its own (the race's bounds every round together)."""
    tracking = dataclasses.replace(cfg.tracking, enabled=False)
    view = dataclasses.replace(cfg.view, enabled=False)
    return dataclasses.replace(
        cfg, episodes=episodes, resume=True, tracking=tracking, view=view, progress=False, budget=Budget()
    )


def race(
    configs: Mapping[str, RunConfig],
    rules: Rules,
    echo: Callable[[str], None] = print,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[Race, dict[str, Any], str | None]:
    """Plays ``configs`` (label -> its run config, one graph each, in the sweep's order) in rounds until decided, or
    until the configs' ``budget`` (the race's, every configuration together) is spent.

    Returns:
        The race, per configuration the summary entry of its logged run, and the budget that stopped the race
        (``episodes``, ``tokens``, ``seconds``; None when it was not stopped).
    """
    labels = list(configs)
    state = Race(len(labels), rules.rule, rules.delta, rules.max_episodes, rules.floor)
    spend = Spend(next(iter(configs.values())).budget, clock)
    played, stopped_by = 0, None
    while not state.decided:
        stopped_by = spend.spent()
        if stopped_by is not None:
            echo(f"budget.{stopped_by} spent: stopped at {played} episodes a configuration, not decided")
            break
        played = min(played + rules.step, rules.max_episodes)
        for k in state.active:
            cfg = _quiet(configs[labels[k]], played)
            run(cfg, echo=lambda _: None)
            new = _played(cfg, len(state.outcomes[k]))
            for record in new:
                spend.add(record)
            state.add(k, [is_converged(r) for r in new])
        state.update()
        echo(f"round: {played} episodes; left: {', '.join(labels[k] for k in state.active) or 'none'}")
    entries = {}
    for k, label in enumerate(labels):  # once, over what it played: its MLflow run, pages and summary
        if not state.outcomes[k]:  # a budget spent before the first round: nothing to summarise
            continue
        cfg = configs[label]
        checkpoint.mark_done(cfg.out_dir / cfg.graphs[0].spec.name, done=False)
        named = dataclasses.replace(cfg.tracking, label=label.removeprefix("graph."))  # its MLflow run's name
        final = dataclasses.replace(
            cfg, episodes=len(state.outcomes[k]), resume=True, progress=False, tracking=named, budget=Budget()
        )
        entries[label] = run(final, echo=lambda _: None).graphs[cfg.graphs[0].spec.name]
    return state, entries, stopped_by


def report(state: Race, labels: list[str], rules: Rules, out: Path, stopped_by: str | None = None) -> dict[str, Any]:
    """``sequential.json``: the choice, whether it was decided, the episodes used against the fixed design's, and
    the budget that stopped the race, if one did."""
    chosen = state.choice()
    configurations = []
    for k, label in enumerate(labels):
        played = state.outcomes[k]
        status = "chosen" if k == chosen else "dropped" if k in state.dropped_at else "left"
        configurations.append(
            {
                "overrides": label,
                "episodes": len(played),
                "rate": sum(played) / len(played) if played else None,
                "status": status,
                "decided_at": state.dropped_at.get(k, len(played) if status == "chosen" and state.settled else None),
            }
        )
    fixed = rules.max_episodes * len(labels)
    values = {
        "chosen": labels[chosen] if chosen is not None else None,
        "decided": state.settled,
        "rule": dataclasses.asdict(rules),
        "episodes_used": state.episodes_used,
        "episodes_fixed": fixed,
        "share_used": state.episodes_used / fixed,
        "configurations": configurations,
    } | ({"stopped_by": f"budget.{stopped_by}"} if stopped_by else {})
    (out / "sequential.json").write_text(json.dumps(values, indent=1))
    return values


def table(values: dict[str, Any]) -> str:
    """The comparison table: each configuration's rate, episodes, and where it was decided."""
    rows = ["| configuration | episodes | rate | status | decided at |", "|---|---|---|---|---|"]
    for c in values["configurations"]:
        rate = "" if c["rate"] is None else f"{c['rate']:.2f}"
        at = "" if c["decided_at"] is None else str(c["decided_at"])
        rows.append(f"| {c['overrides']} | {c['episodes']} | {rate} | {c['status']} | {at} |")
    floor = values["rule"].get("floor")
    decided = (
        f"decided: none reaches the floor {floor:g}"
        if values["decided"] and values["chosen"] is None
        else "decided"
        if values["decided"]
        else f"not decided: {values['stopped_by']} spent (point estimates)"
        if values.get("stopped_by")
        else "not decided at max_episodes (point estimates)"
    )
    rows.append(
        f"\nchosen: {values['chosen']} ({decided}); episodes used {values['episodes_used']} of the fixed design's "
        f"{values['episodes_fixed']} ({values['share_used']:.0%})"
    )
    return "\n".join(rows)
