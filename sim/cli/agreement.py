"""``dialectica agreement RUN``: every verdict of a finished run against people's labels (``analysis.agreement``)."""

from __future__ import annotations

from pathlib import Path

from dialectica.sim.analysis.agreement import agreement, collect, graph_runs, pages, write
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.errors import Parser

DESCRIPTION = (
    "every verdict of a finished run (its convergence, each judge) against people's labels: confusion matrix, "
    "kappa, the disagreements, and the convergence rate corrected for the verdict's measured error"
)


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica agreement", description=DESCRIPTION)
    parser.add_argument("run", type=Path, help="a finished run's directory")
    parser.add_argument(
        "--labels",
        type=Path,
        action="append",
        default=[],
        help="a CSV or JSONL file of labels (episode, label, note, labeler, graph); repeatable; also labels=FILE. "
        "Labels on the run's MLflow traces (feedback human/converged) are read too",
    )
    parser.add_argument("--graph", help="only this graph of the run")
    parser.add_argument(
        "--skip",
        default="",
        help="comma-separated episodes left out, e.g. those shown to an LLM judge as examples (Example.episode)",
    )
    args = parser.parse_args(argv)
    runs = graph_runs(args.run, args.graph)
    names = [run.graph for run in graph_runs(args.run)]
    try:
        skip = {int(e) for e in args.skip.split(",") if e.strip()}
    except ValueError:
        raise ConfigError(f"--skip {args.skip}: give comma-separated episode indices, like 1,4,9") from None
    done = 0
    for run in runs:
        labels = [lab for lab in collect(run, args.labels, names) if lab.episode not in skip]
        if not labels:
            continue
        targeted = [i for i, why in run.queued().items() if why == "targeted"]
        result = agreement(run.records(), labels, targeted, pages(run), run.trace_links())
        written = write(run, result)
        print((run.folder / "agreement.md").read_text())
        print(f"wrote {', '.join(str(p) for p in written)}")
        done += 1
    if not done:
        raise ConfigError(
            f"no labels for {args.run}: add feedback named human/converged on its traces in MLflow's UI, "
            f"run `dialectica label {args.run}`, or give --labels FILE (columns episode,label)"
        )
    return 0
