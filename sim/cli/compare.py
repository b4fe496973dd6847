"""``dialectica compare``: re-run the fixed CI suite and compare every metric with its baseline
(``dialectica.sim.analysis.compare``), for any graph the main command takes (a name, a plugin, or an import string
``package.module:attr``); or ``dialectica compare RUN_A RUN_B``: two finished runs side by side, paired where their
episodes match (``dialectica.sim.analysis.compare_runs``). Exit code 0: no regression; 1: a regression; 2: bad input.

A positional argument that is an existing directory is a run; one with ``=`` (or a leading ``~``) a Hydra override.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from dialectica.sim.analysis.ci_report import write
from dialectica.sim.analysis.compare import (
    BASELINES,
    SUITE_KEY,
    check_suite,
    check_tolerances,
    compare,
    compared,
    run_suite,
    suite_overrides,
    table,
)
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.errors import Parser
from dialectica.sim.config.discovery import display_name, is_import_string, load, names

DESCRIPTION = (
    "re-run the fixed CI suite and compare every metric with its baseline; or compare two runs: dialectica compare "
    "RUN_A RUN_B"
)
GRAPH_KEY = "graph"  # a baseline of a graph named by an import string keeps the string, to run it again


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica compare", description=DESCRIPTION)
    parser.add_argument(
        "--graphs",
        help="comma-separated graphs to check: names, plugins or package.module:attr (default: every graph with a "
        "baseline); with two runs, the graphs to compare",
    )
    parser.add_argument("--update", action="store_true", help="rewrite the baselines from this run")
    parser.add_argument("--tolerance", type=float, default=0.05, help="default relative tolerance")
    parser.add_argument("--all", action="store_true", help="print every metric, not only the failing ones")
    parser.add_argument("--baselines", type=Path, default=BASELINES, help="the folder of <graph>.json baselines")
    parser.add_argument("--out", type=Path, help="write comparison.json, comparison.md and junit.xml here (for CI)")
    parser.add_argument(
        "overrides", nargs="*", help="Hydra overrides for the suite (graph.max_rounds=4), or two run directories"
    )
    args = parser.parse_args(argv)
    runs = [a for a in args.overrides if Path(a).is_dir()]
    return _two_runs(runs, args) if runs else _suite(args)


def _suite(args: Any) -> int:
    known = names()
    graphs = args.graphs.split(",") if args.graphs else _baseline_graphs(args.baselines, known) or known
    loose = [o for o in args.overrides if "=" not in o and not o.startswith("~")]
    if loose and args.graphs:
        raise ConfigError(
            f"{loose[0]!r} is not a key=value override; --graphs takes one comma-separated list "
            f"(--graphs {','.join([*graphs, *loose])}); valid graphs: {', '.join(known)}"
        )
    if loose:
        hint = f"; to run the suite for it: --graphs {loose[0]}" if loose[0] in known else ""
        raise ConfigError(f"{loose[0]!r} is neither a run directory nor a key=value override{hint}")
    _check_graphs(graphs, known)
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise ConfigError(f"--out {args.out} is a file; give a directory")
    if not args.update and not args.graphs and not any(args.baselines.glob("*.json")):
        raise ConfigError(
            f"no baselines in {args.baselines}; make them with "
            f"dialectica compare --baselines {args.baselines} --graphs NAME --update"
        )
    baselines = {} if args.update else _baselines(graphs, args.baselines)
    metrics = {k for path in args.baselines.glob("*.json") for k in compared(json.loads(path.read_text()))}  # every graph's
    tolerances = check_tolerances(args.baselines / "tolerances.yaml", metrics)
    runs = {
        graph: check_suite(name, baselines[name], args.overrides, args.baselines / f"{name}.json")
        if name in baselines
        else list(args.overrides)
        for graph, name in zip(graphs, map(_name, graphs), strict=True)
    }
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for graph, overrides in runs.items():
            results |= run_suite([graph], overrides, Path(tmp))
    if args.update:
        args.baselines.mkdir(parents=True, exist_ok=True)
        for (graph, metrics_now), target in zip(results.items(), graphs, strict=True):
            kept = {GRAPH_KEY: target} if target != graph else {}
            suite = {SUITE_KEY: suite_overrides(args.overrides)}
            text = json.dumps(compared(metrics_now) | kept | suite, indent=2, sort_keys=True)
            (args.baselines / f"{graph}.json").write_text(text + "\n")
        print(f"updated {len(results)} baseline(s) in {args.baselines}")
        return 0
    failed = False
    all_rows: dict[str, list[tuple[str, float | None, float | None, str]] | None] = {}
    for graph, metrics_now in results.items():
        converging = load(baselines[graph].get(GRAPH_KEY, graph)).converging  # its endings' shares rise as gains
        rows = all_rows[graph] = compare(graph, baselines[graph], metrics_now, tolerances, args.tolerance, converging)
        failed |= any(r[3] == "REGRESSION" for r in rows)
        print(table(graph, rows, args.all))
    if args.out is not None:
        written = write(args.out, all_rows, baselines, tolerances, args.tolerance)
        print(f"reports: {', '.join(str(p) for p in written)}")
    print("REGRESSION" if failed else "no regression")
    return 1 if failed else 0


def _name(graph: str) -> str:
    """The name a graph's records and baseline carry."""
    return load(graph).name


def _baselines(graphs: list[str], folder: Path) -> dict[str, dict[str, Any]]:
    """Each graph's baseline, by the name its records carry, found before the suite runs.

    Raises:
        ConfigError: a graph without a baseline.
    """
    out = {}
    for graph in graphs:
        name = _name(graph)
        path = folder / f"{name}.json"
        if not path.exists():
            raise ConfigError(
                f"no baseline for {name} at {path}; make it with dialectica compare --baselines {folder} "
                f"--graphs {graph} --update (and the suite's overrides)"
            )
        out[name] = json.loads(path.read_text())
    return out


def _baseline_graphs(folder: Path, known: list[str]) -> list[str]:
    """The graphs of the baselines in ``folder``: a file's name, or the import string it keeps."""

    graphs = []
    for path in sorted(folder.glob("*.json")):
        target = json.loads(path.read_text()).get(GRAPH_KEY, path.stem)
        if target not in known and not is_import_string(target):
            raise ConfigError(
                f"{path}: no graph named {path.stem!r} here; valid choices: {', '.join(known)}, or name it with "
                "--graphs package.module:attr"
            )
        graphs.append(target)
    return graphs


def _check_graphs(graphs: list[str], known: list[str]) -> None:
    """Every graph loads before anything runs: a name found here, or an import string that imports."""

    for graph in graphs:
        if is_import_string(graph):
            load(graph)
        elif graph not in known:
            raise ConfigError(
                f"unknown graph {graph!r}; valid choices: {', '.join(known)}, or package.module:attr for a "
                "LangGraph graph used as it is"
            )


def _two_runs(runs: list[str], args: Any) -> int:
    from dialectica.sim.analysis.compare_runs import compare_runs  # lazy: start-up (scipy, langchain-core)
    from dialectica.sim.analysis.compare_runs import table as runs_table  # lazy: start-up (scipy, langchain-core)

    others = [a for a in args.overrides if a not in runs]
    missing = [a for a in others if "=" not in a and not a.startswith("~")]
    if missing:
        raise ConfigError(f"{missing[0]}: no such run directory; dialectica compare RUN_A RUN_B takes two run folders")
    if len(runs) != 2 or others:
        given = ", ".join(repr(a) for a in [*runs, *others])
        raise ConfigError(f"dialectica compare RUN_A RUN_B takes two run directories and nothing else; got {given}")
    for flag, value in (("--update", args.update), ("--out", args.out)):
        if value:
            raise ConfigError(f"{flag} is for the suite against its baselines, not for two run directories")

    graphs = [display_name(g) if is_import_string(g) else g for g in (args.graphs or "").split(",") if g]
    comparisons, alone = compare_runs(Path(runs[0]), Path(runs[1]), graphs)
    print(f"A: {runs[0]}\nB: {runs[1]}")
    for c in comparisons:
        print(runs_table(c))
    for line in alone:
        print(line)
    return 0
