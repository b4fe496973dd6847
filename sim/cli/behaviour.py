"""``dialectica behaviour RUN_A RUN_B``: each graph's behaviour statistics for two runs, side by side
(``dialectica.sim.analysis.calibration.behaviour``)."""

from __future__ import annotations

from pathlib import Path

from dialectica.sim.analysis.calibration.behaviour import side_by_side
from dialectica.sim.cli.errors import Parser

DESCRIPTION = "each graph's behaviour statistics for two runs, side by side"


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica behaviour", description=DESCRIPTION)
    parser.add_argument("a", type=Path, help="a run directory or episodes.jsonl")
    parser.add_argument("b", type=Path, help="another run directory or episodes.jsonl")
    parser.add_argument("--graph", action="append", help="only this graph (repeatable)")
    args = parser.parse_args(argv)
    print(side_by_side(args.a, args.b, args.graph), end="")
    return 0
