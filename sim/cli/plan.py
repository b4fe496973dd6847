"""``dialectica plan SWEEP | RUN_A RUN_B [diff=0.05] [power=0.8] [alpha=0.05]``: from a pilot, the episodes a
configuration a fixed design needs to detect ``diff`` against the pilot's best, and what a sequential design is
expected to use (``dialectica.sim.analysis.plan``)."""

from __future__ import annotations

import json
from pathlib import Path

from dialectica.sim.analysis.plan import as_json, needs, pilot, table
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.errors import Parser

DESCRIPTION = "episodes a comparison needs, from a pilot sweep or two pilot runs (paired, from their discordance)"


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica plan", description=DESCRIPTION)
    parser.add_argument("paths", nargs="+", type=Path, help="a sweep folder, or two run folders")
    parser.add_argument("--diff", type=float, default=0.05, help="the difference of convergence rates to detect")
    parser.add_argument("--power", type=float, default=0.8, help="the chance of detecting it")
    parser.add_argument("--alpha", type=float, default=0.05, help="the error level, over all comparisons")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_intermixed_args(argv)
    if not 0 < args.diff < 1 or not 0 < args.power < 1 or not 0 < args.alpha < 1:
        raise ConfigError("diff, power and alpha are each between 0 and 1 (e.g. diff=0.05 power=0.8 alpha=0.05)")
    if len(args.paths) > 2:
        raise ConfigError("give one sweep folder, or two run folders")
    found = needs(pilot(args.paths), args.diff, args.alpha, args.power)
    print(table(found, args.diff, args.alpha, args.power))
    if args.json:
        args.json.write_text(json.dumps(as_json(found), indent=1))
    return 0
