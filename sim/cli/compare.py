"""``dialectica compare``: re-run the fixed CI suite and compare every metric with its committed baseline
(``dialectica.sim.analysis.compare``). Exit code 0: no regression; 1: a regression; 2: bad input."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import yaml

from dialectica.sim.analysis.compare import BASELINES, compare, compared, run_suite, table
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.errors import Parser

DESCRIPTION = "re-run the fixed CI suite and compare every metric with its committed baseline"


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica compare", description=DESCRIPTION)
    parser.add_argument("--graphs", help="comma-separated graphs to check (default: every graph with a baseline)")
    parser.add_argument("--update", action="store_true", help="rewrite the baselines from this run")
    parser.add_argument("--tolerance", type=float, default=0.05, help="default relative tolerance")
    parser.add_argument("--all", action="store_true", help="print every metric, not only the failing ones")
    parser.add_argument("--baselines", type=Path, default=BASELINES)
    parser.add_argument("--out", type=Path, help="write comparison.json, comparison.md and junit.xml here (for CI)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides for the suite, e.g. graph.max_rounds=4")
    args = parser.parse_args(argv)
    from dialectica.sim.config.discovery import names

    known = names()
    graphs = (args.graphs.split(",") if args.graphs else sorted(p.stem for p in args.baselines.glob("*.json"))) or known
    loose = [o for o in args.overrides if "=" not in o]
    if loose:
        raise ConfigError(
            f"{loose[0]!r} is not a key=value override; --graphs takes one comma-separated list "
            f"(--graphs {','.join([*graphs, *loose] if args.graphs else loose)}); valid graphs: {', '.join(known)}"
        )
    unknown = [g for g in graphs if g not in known]
    if unknown:
        raise ConfigError(f"unknown graph {unknown[0]!r}; valid choices: {', '.join(known)}")
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise ConfigError(f"--out {args.out} is a file; give a directory")
    if not args.update and not args.graphs and not any(args.baselines.glob("*.json")):
        raise ConfigError(
            f"no baselines in {args.baselines}; make them with "
            f"dialectica compare --baselines {args.baselines} --graphs NAME --update"
        )
    tolerance_file = args.baselines / "tolerances.yaml"
    tolerances = yaml.safe_load(tolerance_file.read_text()) or {} if tolerance_file.exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        results = run_suite(graphs, args.overrides, Path(tmp))
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
        from dialectica.sim.analysis.ci_report import write

        written = write(args.out, all_rows, baselines, tolerances, args.tolerance)
        print(f"reports: {', '.join(str(p) for p in written)}")
    print("REGRESSION" if failed else "no regression")
    return 1 if failed else 0
