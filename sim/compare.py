"""``dialectica-compare``: re-run the fixed CI suite and compare every metric with its committed baseline.

Baselines live in ``results/baselines/<graph>.json``. A rate with a Wilson interval must stay inside
the baseline's interval; every other metric within a relative tolerance (``--tolerance``, 5% by
default, or per metric in ``results/baselines/tolerances.yaml``). Wall-clock metrics are not compared.
Exit code 0: no regression; 1: a regression; 2: bad input. ``--update`` rewrites the baselines;
``--out DIR`` also writes ``comparison.json``, ``comparison.md`` and ``junit.xml`` there (sim/ci_report.py).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from dialectica.sim.config import compose, from_hydra
from dialectica.sim.params import ConfigError

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


def compare(graph: str, baseline: dict[str, Any], now: dict[str, Any], tolerances: dict[str, float],
            default: float) -> list[tuple[str, float | None, float | None, str]]:
    """Rows (metric, baseline, now, verdict) for one graph; a metric that disappeared is a regression,
    a new one is reported as "new"."""
    base, cur = compared(baseline), compared(now)
    rows: list[tuple[str, float | None, float | None, str]] = []
    bounds = {f"{name}_ci95_{side}" for name in base.keys() | cur.keys() for side in ("low", "high")}
    for name in sorted((base.keys() | cur.keys()) - bounds):  # an interval judges its rate, not itself
        if name not in base:
            rows.append((name, None, cur[name], "new"))
        else:
            rows.append((name, base[name], cur.get(name),
                         _verdict(name, base[name], cur.get(name), baseline, tolerances.get(name, default))
                         if name in cur else "REGRESSION"))
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
    """Runs the CI suite (``conf/experiment/ci_suite.yaml``) for ``graphs``; returns metrics by graph."""
    from dialectica.sim.runner import run_experiment

    results = {}
    for graph in graphs:
        cfg = compose([f"+experiment={SUITE}", f"graph={graph}", *overrides], Path.cwd())
        summary = run_experiment(from_hydra(cfg, out_dir / graph), echo=lambda line: print(line, file=sys.stderr))
        results[graph] = summary["graphs"][graph]["metrics"]
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dialectica-compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", help="comma-separated graphs to check (default: every graph with a baseline)")
    parser.add_argument("--update", action="store_true", help="rewrite the baselines from this run")
    parser.add_argument("--tolerance", type=float, default=0.05, help="default relative tolerance")
    parser.add_argument("--all", action="store_true", help="print every metric, not only the failing ones")
    parser.add_argument("--baselines", type=Path, default=BASELINES)
    parser.add_argument("--out", type=Path, help="write comparison.json, comparison.md and junit.xml here (for CI)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides for the suite, e.g. graph.max_rounds=4")
    args = parser.parse_args(argv)
    from dialectica.sim.discovery import names

    known = names()
    graphs = (args.graphs.split(",") if args.graphs else sorted(p.stem for p in args.baselines.glob("*.json"))) or known
    unknown = [g for g in graphs if g not in known]
    if unknown:
        print(f"dialectica-compare: error: unknown graph {unknown[0]!r}; valid choices: {', '.join(known)}", file=sys.stderr)
        return 2
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        print(f"dialectica-compare: error: --out {args.out} is a file; give a directory", file=sys.stderr)
        return 2
    if not args.update and not args.graphs and not any(args.baselines.glob("*.json")):
        print(f"dialectica-compare: error: no baselines in {args.baselines}; make them with "
              f"dialectica-compare --baselines {args.baselines} --graphs NAME --update", file=sys.stderr)
        return 2
    tolerance_file = args.baselines / "tolerances.yaml"
    tolerances = yaml.safe_load(tolerance_file.read_text()) or {} if tolerance_file.exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            results = run_suite(graphs, args.overrides, Path(tmp))
        except ConfigError as exc:
            print(f"dialectica-compare: error: {exc}", file=sys.stderr)
            return 2
    if args.update:
        args.baselines.mkdir(parents=True, exist_ok=True)
        for graph, metrics in results.items():
            (args.baselines / f"{graph}.json").write_text(json.dumps(compared(metrics), indent=2, sort_keys=True) + "\n")
        print(f"updated {len(results)} baseline(s) in {args.baselines}")
        return 0
    failed = False
    all_rows: dict[str, list[tuple[str, float | None, float | None, str]] | None] = {}
    baselines: dict[str, dict[str, Any]] = {}
    for graph, metrics in results.items():
        path = args.baselines / f"{graph}.json"
        if not path.exists():
            print(f"== {graph}: no baseline at {path}; run with --update")
            failed, all_rows[graph] = True, None
            continue
        baselines[graph] = json.loads(path.read_text())
        rows = all_rows[graph] = compare(graph, baselines[graph], metrics, tolerances, args.tolerance)
        failed |= any(r[3] == "REGRESSION" for r in rows)
        print(table(graph, rows, args.all))
    if args.out is not None:
        from dialectica.sim.ci_report import write

        written = write(args.out, all_rows, baselines, tolerances, args.tolerance)
        print(f"reports: {', '.join(str(p) for p in written)}")
    print("REGRESSION" if failed else "no regression")
    return 1 if failed else 0


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
