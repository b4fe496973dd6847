"""``dialectica label RUN``: choose the episodes a person should label and queue them in MLflow and in a file
(``analysis.labeling``)."""

from __future__ import annotations

from pathlib import Path

from dialectica.sim.analysis.agreement import collect, graph_runs
from dialectica.sim.analysis.labeling import TARGETED, choose, make, queue_name
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.errors import Parser
from dialectica.sim.tracking.store import mlflow_ui, mlflow_ui_url

DESCRIPTION = "choose the episodes of a finished run that a person should label, and queue them (MLflow, a file)"


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica label", description=DESCRIPTION)
    parser.add_argument("run", type=Path, help="a finished run's directory")
    parser.add_argument("--graph", help="the graph to label (needed when the run holds several)")
    parser.add_argument("--n", type=int, default=10, help="episodes drawn at random over scenarios and endings (10)")
    parser.add_argument(
        "--targeted", type=int, default=0, help="also this many episodes whose verdicts disagree (listed, not estimated)"
    )
    parser.add_argument("--name", help="the queue's name in MLflow and in the file's name (default: the run's folder name)")
    parser.add_argument("--seed", type=int, default=0, help="the draw's seed")
    args = parser.parse_args(argv)
    for key in ("n", "targeted"):
        if getattr(args, key) < 0:
            raise ConfigError(f"--{key} {getattr(args, key)} is invalid; valid values: 0 or more")
    runs = graph_runs(args.run, args.graph)
    if len(runs) > 1:
        raise ConfigError(f"{args.run} holds several graphs; give --graph, one of: {', '.join(r.graph for r in runs)}")
    run = runs[0]
    labeled = {lab.episode for lab in collect(run, [], [run.graph])}
    targeted = {i for i, why in run.queued().items() if why == TARGETED}  # a random draw may choose them too
    chosen = choose(run.records(), args.n, args.seed, labeled, args.targeted, redraw=targeted & labeled)
    if not set(chosen) - labeled:  # nothing new to read (a random draw of targeted episodes only)
        raise ConfigError(f"every episode of {run.graph} in {args.run} is labeled already; nothing to queue")
    queue = make(run, chosen, args.name or queue_name(args.run))
    said = ", ".join(f"{i} ({why}{', labeled' * (i in labeled)})" for i, why in sorted(chosen.items()))
    print(f"{run.graph}: {len(set(chosen) - labeled)} episodes to label: {said}")
    found = sum(why == TARGETED for why in chosen.values())
    if found < args.targeted:
        print(
            f"  {found} of the {args.targeted} targeted episodes asked for: only {found} unlabeled episodes have verdicts "
            "that disagree (the ending and a judge; a run without a judge has none)"
        )
    if queue.traces:
        ui = mlflow_ui_url(run.tracking_uri or "")
        print(f"In MLflow ({mlflow_ui(run.tracking_uri or '')}):")
        if queue.review_queue:
            print(f"  review queue {queue.name!r}: {ui}/#/experiments/{queue.experiment_id}/review-queue")
        print(f"  or the traces list filtered by: tags.`dialectica.queue` = '{queue.name}'")
        print("  answer human/converged (pass: the user got what they came for), with a comment saying why")
    if queue.note:
        print(f"  ({queue.note})")
    print(f"In a file: fill the label column (true/false) of {queue.files[1]}")
    print(f"Then: dialectica agreement {args.run}   (it reads that file and the MLflow labels)")
    return 0
