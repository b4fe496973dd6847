"""``dialectica compare RUN_A RUN_B``: two finished runs, graph by graph.

Every metric of each run's summary side by side with the difference (B - A), and each verdict (``converged``,
and ``judge`` where a judge ran: ``agreement.verdict_values``) compared over the episodes both runs played: matched
by seed and scenario, the exact McNemar test and a paired bootstrap interval of the difference (``metrics.paired``). Two
runs share episodes when they ran a graph of the same name with the same ``seed=`` (an episode's seed derives
from the run seed, the graph's name and the episode's index); with none shared the verdicts are compared
unpaired (Fisher's exact test, Newcombe's interval).

A graph is compared with the graph of the same name in the other run; two runs of one graph each under other
names (two versions of a bot) are compared with each other.
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dialectica.metrics import Record, converged
from dialectica.metrics.paired import compare
from dialectica.sim.analysis.agreement import GraphRun, graph_runs, verdict_values
from dialectica.sim.authoring.params import ConfigError

_BOUND = ("_ci95_low", "_ci95_high")  # an interval belongs to its rate; the verdicts compare rates properly


@dataclass(frozen=True)
class VerdictRow:
    """One verdict of both runs: its rates (over the matched episodes when paired), B - A with its 95% interval,
    and the test's p-value (``mcnemar`` paired, ``fisher`` unpaired), all fixed-sample; paired, ``decided_at``: the
    matched episodes after which an anytime-valid test decided at 5% (None: not decided)."""

    verdict: str
    test: str
    rate_a: float
    rate_b: float
    diff: float
    low: float
    high: float
    p: float
    decided_at: int | None = None


@dataclass(frozen=True)
class GraphComparison:
    """One graph of run A against its counterpart in run B."""

    graph_a: str
    graph_b: str
    episodes_a: int
    episodes_b: int
    matched: int  # episodes of A and B with the same seed and scenario
    metrics: list[tuple[str, float | None, float | None]]  # metric, A, B
    verdicts: list[VerdictRow]


def _key(record: Record) -> tuple[Any, Any]:
    """What pairs two runs' episodes: their seed and scenario."""
    return (record["seed"], record["scenario"])


def _outcomes(records: Sequence[Record]) -> dict[str, dict[tuple[Any, Any], tuple[int, bool]]]:
    """Each verdict's (episode index, outcome) by episode key."""
    found: dict[str, dict[tuple[Any, Any], tuple[int, bool]]] = {}
    for record in records:
        for name, value in (verdict_values(record) | {"converged": converged(record)}).items():
            found.setdefault(name, {})[_key(record)] = (int(record["episode"]), value)
    return found


def _in_play_order(
    a: dict[tuple[Any, Any], tuple[int, bool]], b: dict[tuple[Any, Any], tuple[int, bool]]
) -> tuple[dict[Hashable, bool], dict[Hashable, bool]]:
    """Both sides' outcomes keyed so that their pairs sort in the order run ``a`` played them, which the
    anytime-valid test's ``decided_at`` counts in (a seed's order is not its episode's)."""
    order = {k: i for k, (i, _) in a.items()}
    return (
        {(order[k], *k): v for k, (_, v) in a.items()},
        {(order.get(k, i), *k): v for k, (i, v) in b.items()},
    )


def _metrics(run: GraphRun) -> dict[str, Any]:
    metrics: dict[str, Any] = json.loads((run.run_dir / "summary.json").read_text())["graphs"][run.graph]["metrics"]
    return {k: v for k, v in metrics.items() if not k.endswith(_BOUND) and (v is None or isinstance(v, int | float))}


def _verdict(name: str, a: dict[Hashable, bool], b: dict[Hashable, bool]) -> VerdictRow:
    result = compare(b, a)  # B - A
    shared = set(a) & set(b) if result.test == "mcnemar" else None

    def rate(outcomes: dict[Hashable, bool]) -> float:
        values = [v for k, v in outcomes.items() if shared is None or k in shared]
        return sum(values) / len(values) if values else math.nan

    return VerdictRow(name, result.test, rate(a), rate(b), result.diff, result.low, result.high, result.p, result.decided_at)


def compare_graph(a: GraphRun, b: GraphRun) -> GraphComparison:
    """Graph ``a`` of one run against graph ``b`` of another."""
    records_a, records_b = a.records(), b.records()
    metrics_a, metrics_b = _metrics(a), _metrics(b)
    names = [*metrics_a, *(k for k in metrics_b if k not in metrics_a)]
    outcomes_a, outcomes_b = _outcomes(records_a), _outcomes(records_b)
    return GraphComparison(
        a.graph,
        b.graph,
        len(records_a),
        len(records_b),
        len({_key(r) for r in records_a} & {_key(r) for r in records_b}),
        [(name, metrics_a.get(name), metrics_b.get(name)) for name in names],
        [_verdict(v, *_in_play_order(outcomes_a[v], outcomes_b[v])) for v in outcomes_a if v in outcomes_b],
    )


def compare_runs(a: Path, b: Path, graphs: Sequence[str] = ()) -> tuple[list[GraphComparison], list[str]]:
    """The graphs of run ``a`` against those of run ``b`` (only ``graphs`` if given), and one line for each graph
    found in one run only.

    Raises:
        ConfigError: a path that is not a finished run directory, a graph named in neither run, or no graph to
            compare.
    """
    runs_a, runs_b = ({r.graph: r for r in graph_runs(path)} for path in (a, b))
    for graph in graphs:
        if graph not in runs_a and graph not in runs_b:
            raise ConfigError(f"--graphs {graph}: in neither run; valid choices: {', '.join({**runs_a, **runs_b})}")
    if graphs:
        runs_a = {g: r for g, r in runs_a.items() if g in graphs}
        runs_b = {g: r for g, r in runs_b.items() if g in graphs}
    if len(runs_a) == len(runs_b) == 1 and not runs_a.keys() & runs_b.keys():  # one graph each, named otherwise
        return [compare_graph(*runs_a.values(), *runs_b.values())], []
    both = [g for g in runs_a if g in runs_b]
    if not both:
        raise ConfigError(
            f"no graph in both runs: {a} has {', '.join(runs_a) or 'none'}; {b} has {', '.join(runs_b) or 'none'}"
        )
    alone = [f"== {g}: only in {a}" for g in runs_a if g not in runs_b]
    alone += [f"== {g}: only in {b}" for g in runs_b if g not in runs_a]
    return [compare_graph(runs_a[g], runs_b[g]) for g in both], alone


def _fmt(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.4g}"


def _signed(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:+.3f}"


def table(c: GraphComparison) -> str:
    """One graph's comparison as text: the metrics, then the verdicts and how many episodes matched."""
    title = c.graph_a if c.graph_a == c.graph_b else f"{c.graph_a} (A) vs {c.graph_b} (B)"
    lines = [f"== {title}: {c.episodes_a} episodes in A, {c.episodes_b} in B"]
    lines.append(f"{'metric':48} {'A':>10} {'B':>10} {'B - A':>10}")
    for name, va, vb in c.metrics:
        diff = vb - va if va is not None and vb is not None else None
        lines.append(f"{name:48} {_fmt(va):>10} {_fmt(vb):>10} {_fmt(diff):>10}")
    if c.matched:
        lines.append(
            f"{c.matched} episodes matched by seed and scenario: verdicts paired over them (fixed-sample: exact "
            "McNemar, 95% paired bootstrap interval; decided: after how many pairs an anytime-valid test decided)"
        )
    else:
        lines.append(
            "no episodes matched by seed and scenario (another seed= or graph name): verdicts unpaired "
            "(Fisher's exact test, Newcombe's interval)"
        )
    decided_head = f" {'decided':>9}" if c.matched else ""
    lines.append(
        f"{'verdict':24} {'A rate':>8} {'B rate':>8} {'B - A':>8} {'95% interval':>18} {'p':>8}{decided_head}  test"
    )
    for v in c.verdicts:
        interval = f"{_signed(v.low)} to {_signed(v.high)}"
        decided = f" {'no' if v.decided_at is None else f'at {v.decided_at}':>9}" if c.matched else ""
        lines.append(
            f"{v.verdict:24} {_fmt(v.rate_a):>8} {_fmt(v.rate_b):>8} {_signed(v.diff):>8} {interval:>18} "
            f"{v.p:>8.3g}{decided}  {v.test}"
        )
    return "\n".join(lines)
