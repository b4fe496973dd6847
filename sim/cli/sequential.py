"""usage: dialectica sequential graph=NAME grid.KEY=a,b,c [rule=best] [delta=0.05] [max_episodes=300] [step=10]
                             [floor=RATE] [out=DIR] [KEY=VALUE ...]

A sweep played in rounds on shared seeds, stopped when its choice is decided at error level delta
(dialectica.sim.engine.sequential).

Keys:
  graph=NAME          the graph (a name, a plugin or module:attr)
  grid.KEY=a,b,c      the values of ``graph.KEY`` to compare, in order (default: the graph's own grid)
  rule=best|floor     best: the highest convergence rate; floor: the first configuration, in the grid's order
                      (cheapest first), whose rate is at least ``floor``
  floor=RATE          the rate ``rule=floor`` asks for, in (0, 1]
  delta=0.05          the chance, over the whole sweep and at every look, that a decision is wrong
  max_episodes=300    the fixed design it replaces: no configuration plays more
  step=10             episodes a configuration plays each round
  out=DIR             where the runs and ``sequential.json`` go (default results/sequential/<graph>-<time>)
  budget.KEY=N        episodes, tokens or seconds for the whole race, every configuration together; checked before
                      each round, so a race passes it by one round at most
  anything else       overrides of every configuration's run (participants=, seed=, llm.*, tracking=, ...)
"""

from __future__ import annotations

import dataclasses
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from dialectica.sim.authoring.params import ConfigError

KEYS = {"rule": str, "delta": float, "max_episodes": int, "step": int, "floor": float, "out": str}


def _parse(argv: list[str]) -> tuple[str, dict[str, list[Any]], dict[str, Any], list[str]]:
    from dialectica.sim.analysis.validity import grid_arguments  # lazy: start-up (numpy, yaml)

    if any(a.partition("=")[0] == "episodes" for a in argv):
        raise ConfigError("episodes= is decided by the race; give max_episodes=N (the fixed design's count)")
    graph, grid, given, rest = grid_arguments(argv, "sequential", tuple(KEYS))
    keys: dict[str, Any] = {}
    for key, value in given.items():
        try:
            keys[key] = KEYS[key](value)
        except ValueError:
            raise ConfigError(f"{key}={value!r} is not a {KEYS[key].__name__}") from None
    if len(grid) != 1 or len(next(iter(grid.values()))) < 2:
        raise ConfigError("give one grid key with two values or more, e.g. grid.budget=3,6,10")
    return graph, grid, keys, rest


def rules_of(keys: dict[str, Any]) -> Any:
    """The race's rules from the command's keys.

    Raises:
        ConfigError: one line naming the key and its valid values.
    """
    from dialectica.sim.config.shape import MAX_EPISODES  # lazy: start-up (omegaconf)
    from dialectica.sim.engine.sequential import Rules  # lazy: start-up (scipy, omegaconf)

    rules = Rules(**keys)
    if rules.rule not in ("best", "floor"):
        raise ConfigError(f"rule={rules.rule!r} is invalid; valid values: best, floor")
    if rules.rule == "floor" and rules.floor is None:
        raise ConfigError("rule=floor needs floor=RATE, the rate to reach, in (0, 1], e.g. floor=0.8")
    if rules.rule == "best" and rules.floor is not None:
        raise ConfigError(f"floor={rules.floor:g} applies to rule=floor only; add rule=floor, or drop floor=")
    if rules.floor is not None and not 0 < rules.floor <= 1:
        raise ConfigError(f"floor={rules.floor:g} is invalid; valid values: a rate in (0, 1], e.g. floor=0.8")
    if not 0 < rules.delta < 1:
        raise ConfigError(f"delta={rules.delta:g} is invalid; valid values: an error level in (0, 1), e.g. 0.05")
    if rules.step < 1:
        raise ConfigError(f"step={rules.step} is invalid; valid values: an integer >= 1")
    if not rules.step <= rules.max_episodes <= MAX_EPISODES:
        raise ConfigError(
            f"max_episodes={rules.max_episodes} is invalid; valid values: integers {rules.step} (step)..{MAX_EPISODES:,}"
        )
    return rules


def main(argv: list[str]) -> int:
    if {"--help", "-h"} & set(argv):
        print((__doc__ or "").strip())
        return 0
    from dialectica.sim.config.discovery import folder_name  # lazy: start-up (yaml)
    from dialectica.sim.config.groups import option, register_plugin_configs  # lazy: start-up (yaml)
    from dialectica.sim.config.loader import load  # lazy: start-up (omegaconf, yaml)
    from dialectica.sim.engine.sequential import race, report, table  # lazy: start-up (scipy, omegaconf)

    graph, grid, keys, rest = _parse(argv)
    (key, values), out = next(iter(grid.items())), keys.pop("out", None)
    rules = rules_of(keys)
    register_plugin_configs([graph] if ":" in graph else [])
    root = Path(out) if out else Path("results/sequential") / f"{folder_name(graph)}-{datetime.now():%Y-%m-%d_%H-%M-%S}"
    configs = {
        f"graph.{key}={value}": load([f"graph={option(graph)}", *rest, f"graph.{key}={value}"], out_dir=root / str(i))
        for i, value in enumerate(values)
    }  # every configuration checked before the first episode
    root.mkdir(parents=True, exist_ok=True)
    tracking = next(iter(configs.values())).tracking
    parent = None
    if tracking.enabled:  # the configurations' runs under one parent, as a sweep's jobs are
        from dialectica.sim.tracking.runs import end_parent, open_parent  # lazy: start-up (sqlite3)

        note = f"A sequential sweep of {key} over {', '.join(map(str, values))}: `dialectica sequential` in {root}."
        parent = open_parent(tracking, f"sequential {key.removeprefix('graph.')}", note)
        configs = {
            label: dataclasses.replace(cfg, tracking=dataclasses.replace(cfg.tracking, parent_run_id=parent))
            for label, cfg in configs.items()
        }
    try:
        state, _, stopped_by = race(configs, rules, echo=lambda line: print(line, file=sys.stderr))
        decided = report(state, list(configs), rules, root, stopped_by)
    except BaseException as exc:
        if parent is not None:
            end_parent(tracking, parent, None, "KILLED" if isinstance(exc, KeyboardInterrupt) else "FAILED")
        raise
    print(table(decided))
    print(f"outputs: {root}")
    if parent is not None:
        from dialectica.sim.tracking.store import mlflow_ui  # lazy: start-up (ssl, http)

        said = {"chosen": decided["chosen"] or "none", "decided": str(decided["decided"]).lower()}
        used = {k: float(decided[k]) for k in ("episodes_used", "episodes_fixed", "share_used")}
        end_parent(tracking, parent, root / "sequential.json", tags=said, metrics=used)

        print(f"mlflow:  {mlflow_ui(tracking.uri)}   (a parent run, and a run per configuration named by it)")
    return 0
