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

from dialectica.sim.cli.subcommands import SUBCOMMANDS


def command(name: str) -> Callable[[list[str]], Any]:
    module, _, function = SUBCOMMANDS[name][0].partition(":")
    found: Callable[[list[str]], Any] = getattr(import_module(module), function)
    return found


def dispatch(name: str, argv: list[str]) -> int:
    """Runs subcommand ``name`` with ``argv`` under the error policy (each answers ``--help`` with its keys)."""
    from dialectica.sim.cli.errors import guarded  # lazy: start-up (12 ms)

    return guarded(command(name), argv)


def main() -> None:
    """``dialectica``: the subcommand named first, or ``run``."""
    args = sys.argv[1:]
    if args[:1] and args[0] in SUBCOMMANDS and args[0] != "run":
        sys.exit(dispatch(args[0], args[1:]))
    from dialectica.sim.cli.run import main as run  # lazy: start-up (hydra, omegaconf)

    run(args[1:] if args[:1] == ["run"] else args)


def _alias(name: str) -> Callable[[], None]:
    def entry() -> None:
        sys.exit(dispatch(name, sys.argv[1:]))

    entry.__doc__ = f"``dialectica-{name}``, an alias of ``dialectica {name}`` for one release."
    return entry


view, compare, bench, validity, calibrate, behaviour = map(
    _alias, ("view", "compare", "bench", "validity", "calibrate", "behaviour")
)
