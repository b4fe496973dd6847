"""``dialectica <subcommand>``: one command, its subcommands found in one table.

``run`` is the default: ``dialectica graph=panel episodes=50`` is ``dialectica run graph=panel episodes=50``.
Every subcommand takes ``KEY=VALUE``: those that run episodes (run, replay, validity, calibrate, sequential) as Hydra's
overrides, those that read finished runs (view, report, compare, plan, bench, ...) besides their paths, each option
``--key`` also written ``key=value``. Every subcommand's handler is its module here, answers ``--help`` with its
keys, and follows one error policy (``errors``): bad input is one line and exit 2.

The old console scripts (``dialectica-view``, ``dialectica-compare``, ``dialectica-bench``,
``dialectica-validity``, ``dialectica-calibrate``, ``dialectica-behaviour``) are aliases for one release.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any

# name: (the function taking the arguments after the name, what the subcommand does). Imported on use.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": ("dialectica.sim.cli.run:main", "run every graph (or graph=NAME) with KEY=VALUE overrides; -m sweeps"),
    "list": ("dialectica.sim.cli.listing:main", "the graphs found (or named): scenarios, params, metrics, endings"),
    "replay": ("dialectica.sim.cli.run:replay", "fork every episode of a finished run after turn T, paired"),
    "view": ("dialectica.sim.cli.view:main", "episode pages of a run (or an MLflow run id), served on loopback"),
    "report": ("dialectica.sim.cli.report:main", "a sweep's notebook as one HTML page"),
    "compare": (
        "dialectica.sim.cli.compare:main",
        "the CI suite against its baselines (exit 1: regression); or RUN_A RUN_B, paired",
    ),
    "bench": ("dialectica.sim.cli.bench:main", "the harness's performance figures, side by side"),
    "sequential": (
        "dialectica.sim.cli.sequential:main",
        "a sweep in rounds on shared seeds, stopped when its choice is decided (anytime-valid)",
    ),
    "plan": (
        "dialectica.sim.cli.plan:main",
        "episodes a comparison needs, fixed or sequential, from a pilot sweep or two runs",
    ),
    "validity": ("dialectica.sim.cli.validity:main", "do the scripted cast's rankings hold with LLM participants?"),
    "calibrate": ("dialectica.sim.cli.calibrate:main", "fit the scripted personas to an LLM reference run"),
    "behaviour": ("dialectica.sim.cli.behaviour:main", "each graph's behaviour statistics for two runs, side by side"),
    "label": ("dialectica.sim.cli.label:main", "choose episodes of a finished run for people to label; queue them"),
    "agreement": ("dialectica.sim.cli.agreement:main", "every verdict of a run against people's labels; corrected rate"),
    "synthesize": ("dialectica.sim.cli.synthesize:main", "write a scenarios file from a short description of the users"),
    "pairwise": ("dialectica.sim.cli.pairwise:main", "an LLM judge names the better of each pair of two runs' episodes"),
}


def command(name: str) -> Callable[[list[str]], Any]:
    module, _, function = SUBCOMMANDS[name][0].partition(":")
    found: Callable[[list[str]], Any] = getattr(import_module(module), function)
    return found


def subcommand_lines() -> list[str]:
    width = max(map(len, SUBCOMMANDS))
    return [f"  {name:{width}}  {what}" for name, (_, what) in SUBCOMMANDS.items()]


def dispatch(name: str, argv: list[str]) -> int:
    """Runs subcommand ``name`` with ``argv`` under the error policy (each answers ``--help`` with its keys)."""
    from dialectica.sim.cli.errors import guarded

    return guarded(command(name), argv)


def main() -> None:
    """``dialectica``: the subcommand named first, or ``run``."""
    args = sys.argv[1:]
    if args[:1] and args[0] in SUBCOMMANDS and args[0] != "run":
        sys.exit(dispatch(args[0], args[1:]))
    from dialectica.sim.cli.run import main as run

    run(args[1:] if args[:1] == ["run"] else args)


def _alias(name: str) -> Callable[[], None]:
    def entry() -> None:
        sys.exit(dispatch(name, sys.argv[1:]))

    entry.__doc__ = f"``dialectica-{name}``, an alias of ``dialectica {name}`` for one release."
    return entry


view, compare, bench, validity, calibrate, behaviour = map(
    _alias, ("view", "compare", "bench", "validity", "calibrate", "behaviour")
)
