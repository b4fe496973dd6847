"""``dialectica behaviour RUN_A RUN_B``: each graph's behaviour statistics for two runs, side by side.

A run is a run directory (or its ``episodes.jsonl``); every graph that both hold and that declares behaviour
statistics (``GraphSpec.calibration``) gets a table: statistic, the two runs' values, their difference, and
what the statistic means. Use it to see how an LLM cast differs from a scripted or calibrated one.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

from dialectica.metrics import FullRecord
from dialectica.sim.analysis.calibration.fit import statistics
from dialectica.sim.authoring.params import ConfigError


def episodes_file(run: Path) -> Path:
    path = run / "episodes.jsonl" if run.is_dir() else run
    if not path.is_file():
        raise ConfigError(f"{run}: no episodes.jsonl there; give a run directory (results/runs/<time>) or the file")
    return path


def run_statistics(run: Path, graphs: list[str] | None = None) -> dict[str, dict[str, float]]:
    """{graph: {statistic: value}} for every calibratable graph in the run (or those named)."""
    from dialectica.sim.config import discovery  # lazy: start-up (yaml)
    from dialectica.sim.records import read  # lazy: start-up (pydantic)

    by_graph: dict[str, list[FullRecord]] = defaultdict(list)
    for record in read(episodes_file(run)):
        if graphs is None or record["graph"] in graphs:
            by_graph[record["graph"]].append(record)
    out = {}
    for graph, records in sorted(by_graph.items()):
        calibration = discovery.load(graph).calibration if graph in discovery.names() else None
        if calibration is not None:
            out[graph] = statistics(calibration, records) | {"episodes": float(len(records))}
    return out


def _cell(v: float | None) -> str:
    return "-" if v is None or math.isnan(v) else f"{v:.3g}"


def side_by_side(a: Path, b: Path, graphs: list[str] | None = None) -> str:
    """Markdown: one table per graph that both runs hold."""
    from dialectica.sim.config import discovery  # lazy: start-up (yaml)

    left, right = run_statistics(a, graphs), run_statistics(b, graphs)
    shared = [g for g in left if g in right]
    if not shared:
        raise ConfigError(
            f"{a} and {b} share no graph with behaviour statistics (the first holds "
            f"{', '.join(left) or 'none'}, the second {', '.join(right) or 'none'})"
        )
    parts = []
    for graph in shared:
        calibration = discovery.load(graph).calibration
        docs = dict(calibration.docs) if calibration is not None else {}
        lines = [f"## {graph}", "", "| statistic | A | B | B - A | meaning |", "|---|---|---|---|---|"]
        for name, value in left[graph].items():
            other = right[graph].get(name, math.nan)
            lines.append(f"| {name} | {_cell(value)} | {_cell(other)} | {_cell(other - value)} | {docs.get(name, '')} |")
        parts.append("\n".join(lines))
    return f"A: {a}\nB: {b}\n\n" + "\n\n".join(parts) + "\n"
