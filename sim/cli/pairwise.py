"""``dialectica pairwise RUN_A RUN_B``: an LLM judge names the better of each pair of episodes
(``dialectica.sim.analysis.pairwise``)."""

from __future__ import annotations

import math
from pathlib import Path

from dialectica.sim.analysis.pairwise import FILE, GraphPairwise, pairwise
from dialectica.sim.cli.errors import Parser

DESCRIPTION = (
    "an LLM judge reads each pair of episodes of two runs (same seed and scenario) in a drawn order and names the "
    "better: B's win rate with its interval, the sign test, and how often the judge picked the one shown first"
)


def line(r: GraphPairwise) -> str:
    def fmt(x: float) -> str:
        return "-" if math.isnan(x) else f"{x:.3f}"

    unread = f", unread {r.unread} (left out)" if r.unread else ""
    unpaired = f" ({r.unpaired} episodes without a counterpart left out)" if r.unpaired else ""
    return (
        f"{r.graph}: {r.pairs} pairs{unpaired}, {len(r.comparisons)} judgments: B won {r.wins_b}, A won {r.wins_a}, "
        f"ties {r.ties}{unread}; B's win rate {fmt(r.win_rate_b)} ({fmt(r.ci95[0])}-{fmt(r.ci95[1])}), sign test "
        f"p {fmt(r.sign_p)}; picked the first shown {fmt(r.first_picked)} (p {fmt(r.position_p)})"
    )


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica pairwise", description=DESCRIPTION)
    parser.add_argument("run_a", type=Path, help="a finished run's directory (A)")
    parser.add_argument("run_b", type=Path, nargs="?", help="another (B): a replay of A, or A's graph under other settings")
    parser.add_argument("--both-orders", action="store_true", help="judge each pair twice, once in each order")
    parser.add_argument("--seed", type=int, default=0, help="draws each pair's order")
    parser.add_argument(
        "overrides",
        nargs="*",
        help="llm overrides for the judge (default: the local model, llm=llamacpp), e.g. llm.preset=qwen2.5-coder-1.5b",
    )
    args = parser.parse_intermixed_args(argv)  # options may come between the paths and the overrides
    if args.run_b is None:
        parser.error("the following argument is required: run_b")
    results = pairwise(args.run_a, args.run_b, overrides=args.overrides, both_orders=args.both_orders, seed=args.seed)
    for result in results:
        print(line(result))
    print(f"judgments: {args.run_b / FILE}")
    return 0
