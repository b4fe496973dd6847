"""``dialectica compare``: re-run the fixed CI suite and compare every metric with its committed baseline.

Baselines live in ``results/baselines/<graph>.json`` (``--baselines DIR`` for a project's own); a graph named by an
import string is filed under the name its records carry (``package.module.attr``). A rate with a Wilson interval
must stay inside the baseline's interval; every other metric within a relative tolerance (``--tolerance``, 5% by
default, or per metric in ``results/baselines/tolerances.yaml``). Wall-clock metrics are not compared.
Exit code 0: no regression; 1: a regression; 2: bad input. ``--update`` rewrites the baselines;
``--out DIR`` also writes ``comparison.json``, ``comparison.md`` and ``junit.xml`` there (sim/analysis/ci_report.py).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BASELINES = Path("results") / "baselines"  # relative to the working directory
SUITE = "ci_suite"
_TIMING = re.compile(r"(seconds|speedup)")


def compared(metrics: dict[str, Any]) -> dict[str, float | None]:
    """The metrics a regression check compares: numeric, finite or not, and not wall-clock."""
    return {k: v for k, v in metrics.items() if not _TIMING.search(k) and (v is None or isinstance(v, (int, float)))}


def _verdict(name: str, base: float | None, now: float | None, baseline: dict[str, Any], tolerance: float) -> str:
    if base is None and now is None:
        return "ok"
    if base is None or now is None:
        return "REGRESSION"
    low, high = baseline.get(f"{name}_ci95_low"), baseline.get(f"{name}_ci95_high")
    if low is not None and high is not None:
        return "ok" if low - 1e-9 <= now <= high + 1e-9 else "REGRESSION"
    return "ok" if math.isclose(now, base, rel_tol=tolerance, abs_tol=1e-9) else "REGRESSION"


def compare(
    graph: str, baseline: dict[str, Any], now: dict[str, Any], tolerances: dict[str, float], default: float
) -> list[tuple[str, float | None, float | None, str]]:
    """Rows (metric, baseline, now, verdict) for one graph; a metric that disappeared is a regression,
    a new one is reported as "new"."""
    base, cur = compared(baseline), compared(now)
    rows: list[tuple[str, float | None, float | None, str]] = []
    bounds = {f"{name}_ci95_{side}" for name in base.keys() | cur.keys() for side in ("low", "high")}
    for name in sorted((base.keys() | cur.keys()) - bounds):  # an interval judges its rate, not itself
        if name not in base:
            rows.append((name, None, cur[name], "new"))
        else:
            rows.append(
                (
                    name,
                    base[name],
                    cur.get(name),
                    _verdict(name, base[name], cur.get(name), baseline, tolerances.get(name, default))
                    if name in cur
                    else "REGRESSION",
                )
            )
    return rows


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def table(graph: str, rows: Sequence[tuple[str, float | None, float | None, str]], everything: bool) -> str:
    shown = [r for r in rows if everything or r[3] != "ok"]
    lines = [f"== {graph}: {sum(r[3] == 'REGRESSION' for r in rows)} regression(s) in {len(rows)} metrics"]
    if shown:
        lines.append(f"{'metric':48} {'baseline':>10} {'now':>10} {'delta':>10}  verdict")
        for name, base, now, verdict in shown:
            delta = now - base if base is not None and now is not None else None
            lines.append(f"{name:48} {_fmt(base):>10} {_fmt(now):>10} {_fmt(delta):>10}  {verdict}")
    return "\n".join(lines)


def run_suite(graphs: Sequence[str], overrides: Sequence[str], out_dir: Path) -> dict[str, dict[str, Any]]:
    """Runs the CI suite (``conf/experiment/ci_suite.yaml``) for ``graphs`` (names, plugins or import strings, as
    ``graph=`` takes them); returns metrics by the name each graph's records carry, in the order given."""
    from dialectica.sim.config.discovery import is_import_string, load  # lazy: start-up (yaml)
    from dialectica.sim.config.groups import option, register_plugin_configs  # lazy: start-up (yaml)
    from dialectica.sim.config.loader import load as load_config  # lazy: start-up (omegaconf, yaml)
    from dialectica.sim.engine.runner import run  # lazy: start-up (omegaconf, yaml)

    register_plugin_configs([g for g in graphs if is_import_string(g)])
    results = {}
    for graph in graphs:
        name = load(graph).name
        cfg = load_config([f"+experiment={SUITE}", f"graph={option(graph)}", *overrides], out_dir=out_dir / name)
        results[name] = run(cfg, echo=lambda line: print(line, file=sys.stderr)).metrics(name)
    return results
