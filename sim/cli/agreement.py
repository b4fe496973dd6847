"""``dialectica agreement RUN``: every verdict of a finished run against people's labels (``analysis.agreement``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from dialectica.sim.analysis.agreement import measured, pooled, post_labels, sweep_jobs, sweep_markdown, write
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.errors import Parser

DESCRIPTION = (
    "every verdict of a finished run (its convergence, each judge) against people's labels: confusion matrix, "
    "kappa, the disagreements, and the convergence rate corrected for the verdict's measured error"
)


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica agreement", description=DESCRIPTION)
    parser.add_argument(
        "run", type=Path, help="a finished run's directory, or a sweep's (its configurations pooled over seeds)"
    )
    parser.add_argument(
        "--labels",
        type=Path,
        action="append",
        default=[],
        help="a CSV or JSONL file of labels (episode, label, note, labeler, graph); repeatable; also labels=FILE. "
        "Labels on the run's MLflow traces (feedback human/converged) are read too, and the files' labels are "
        "posted to the traces",
    )
    parser.add_argument("--graph", help="only this graph of the run")
    parser.add_argument(
        "--skip",
        default="",
        help="comma-separated episodes left out, e.g. those shown to an LLM judge as examples (Example.episode)",
    )
    args = parser.parse_args(argv)
    if not (args.run / "summary.json").is_file() and sweep_jobs(args.run):
        if args.labels:
            raise ConfigError(
                f"--labels with the sweep {args.run}: a file names one run's episodes; label each job in MLflow, "
                "or in the labels_<name>.csv that `dialectica label JOB` writes, then run agreement on the sweep"
            )
        return _sweep(args)
    _run(args)
    return 0


def _run(args: Any, echo: bool = True) -> dict[str, dict[str, Any]]:
    """Agreement for each graph of one run directory: graph -> result (graphs without labels left out)."""
    try:
        skip = {int(e) for e in args.skip.split(",") if e.strip()}
    except ValueError:
        raise ConfigError(f"--skip {args.skip}: give comma-separated episode indices, like 1,4,9") from None
    done: dict[str, dict[str, Any]] = {}
    for run, labels, result in measured(args.run, args.labels, args.graph, skip):
        written = write(run, result)
        posted = post_labels(run, labels)
        if echo:
            print((run.folder / "agreement.md").read_text())
            print(f"wrote {', '.join(str(p) for p in written)}")
        if posted:
            print(posted, file=sys.stderr if posted.startswith("could not") else sys.stdout)
        done[run.graph] = result
    if not done and echo:
        raise ConfigError(
            f"no labels for {args.run}: add feedback named human/converged on its traces in MLflow's UI, "
            f"run `dialectica label {args.run}`, or give --labels FILE (columns episode,label)"
        )
    return done


def _sweep(args: Any) -> int:
    """A sweep directory: every job's agreement, then each graph's configurations pooled over their seeds."""
    by_graph: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    configurations = sweep_jobs(args.run)
    for name, jobs in configurations.items():
        results: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for job in jobs:
            for graph, result in _run(argparse.Namespace(**{**vars(args), "run": job}), echo=False).items():
                results[graph].append(result)
        for graph, found in results.items():
            by_graph[graph][name] = pooled(found)
    if not by_graph:
        raise ConfigError(f"no labels for any job of the sweep {args.run}; label its jobs' runs (dialectica label JOB)")
    texts = [sweep_markdown(g, rows, [c for c in configurations if c not in rows]) for g, rows in by_graph.items()]
    print("\n".join(texts))
    (args.run / "agreement.json").write_text(json.dumps(by_graph, indent=2) + "\n")
    (args.run / "agreement.md").write_text("\n".join(texts))
    print(f"wrote {args.run / 'agreement.json'}, {args.run / 'agreement.md'}")
    return 0
