"""``dialectica label RUN``: which episodes a person should look at, queued where they will label them.

**Which**: ``n`` episodes drawn at random, spread over the graph's scenarios and endings in proportion
(systematic sampling over the episodes ordered by scenario, ending and a seeded key), so that the labels of
each verdict class are a random sample of it, which the corrected rate needs (``metrics.verdicts``); then, on
request, ``targeted`` episodes where two of the record's verdicts disagree (the judge and the ending), which
``agreement`` lists but leaves out of its estimates. Episodes already labeled are not drawn again.

**Where**: each chosen episode's MLflow trace (one is made from its record when it was not traced while it
ran), tagged ``dialectica.queue=<name>`` so that MLflow's trace list filtered by that tag is the queue; an
MLflow review queue of that name asking the question ``human/converged`` (pass/fail, with a comment) over
those traces; ``<graph>/label_queue.json``; and ``<graph>/labels_<name>.csv``, the same episodes with their
pages and an empty ``label`` column, for people who label in a file.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dialectica.metrics import Record
from dialectica.sim import records as rec
from dialectica.sim.analysis.agreement import QUEUE, TRACES, GraphRun, pages, verdict_values
from dialectica.sim.config.view import ViewOptions
from dialectica.sim.engine.checkpoint import digest
from dialectica.sim.tracking.store import open_store
from dialectica.sim.tracking.traces import HUMAN, TAG, trace_record, use_store

RANDOM, TARGETED = "random", "targeted"
QUESTION = (
    "Read the whole conversation. Did it converge: did the user get what they came for (a graph of experts: did "
    "they reach the agreement the graph claims)? Say why in the comment."
)


def choose(
    records: Sequence[Record], n: int, seed: int, labeled: set[int], targeted: int = 0, redraw: Iterable[int] = ()
) -> dict[int, str]:
    """Episode -> why it was chosen (``random`` or ``targeted``), from ``records`` less the ``labeled`` ones; the
    random draw may choose the ``redraw`` ones among them too (labeled because a draw targeted them: a random draw
    that chooses one makes its label count)."""
    rng = random.Random(seed)
    again = set(redraw)
    pool = [r for r in records if int(r["episode"]) not in labeled or int(r["episode"]) in again]
    keys = {int(r["episode"]): rng.random() for r in pool}
    ordered = sorted(pool, key=lambda r: (str(r["scenario"]), str(r["termination_reason"]), keys[int(r["episode"])]))
    count = min(n, len(ordered))
    chosen: dict[int, str] = {}
    if count:
        step = len(ordered) / count
        start = rng.random() * step
        chosen = {int(ordered[int(start + k * step)]["episode"]): RANDOM for k in range(count)}
    split = [
        int(r["episode"])
        for r in sorted(pool, key=lambda r: keys[int(r["episode"])])
        if int(r["episode"]) not in chosen and int(r["episode"]) not in labeled and len(set(verdict_values(r).values())) > 1
    ]
    return chosen | dict.fromkeys(split[:targeted], TARGETED)


def requeued(queued: dict[str, str], chosen: dict[int, str]) -> dict[str, str]:
    """The queue file's episodes (episode -> why) with ``chosen`` added: an episode drawn at random once stays
    ``random`` (a random draw chose it, whatever else did), so that the estimates keep it."""
    return queued | {str(i): RANDOM if RANDOM in (why, queued.get(str(i))) else why for i, why in chosen.items()}


def queue_name(run_dir: Path) -> str:
    """A run's default queue name: its folder's name, with the sweep's where the folder is a job number (a sweep's
    jobs are 0, 1, ...), so that two runs' queues do not merge."""
    path = run_dir.resolve()
    return f"{path.parent.name}-{path.name}" if path.name.isdigit() else path.name


@dataclass(frozen=True)
class Queue:
    """What ``make`` left: the chosen episodes, their trace ids, the files, and the MLflow review queue's id."""

    name: str
    episodes: dict[int, str]
    traces: dict[int, str]
    files: list[Path]
    review_queue: str | None = None
    experiment_id: str | None = None
    note: str = ""


def _traced(run: GraphRun, chosen: dict[int, str], name: str) -> Queue:
    """The chosen episodes' traces, each tagged with the queue (made from the record when missing), and the review
    queue over them."""
    from mlflow.tracing.client import TracingClient

    assert run.tracking_uri is not None and run.mlflow_run_id is not None
    _, experiment_id = open_store(run.tracking_uri, _experiment(run))
    use_store(run.tracking_uri, experiment_id)
    traces = dict(run.traces)
    missing = [i for i in chosen if i not in traces]
    if missing:
        config = digest(json.loads((run.folder / "config.json").read_text()))
        for i, record in sorted(rec.GraphRecords(run.run_dir / rec.FILE, run.graph).pick(set(missing)).items()):
            traces[i] = trace_record(
                record, run.tracking_uri, experiment_id, run.mlflow_run_id, str(run.run_dir.resolve()), config
            )
        (run.folder / TRACES).write_text(json.dumps({"experiment_id": experiment_id, "traces": traces}, indent=1))
    tracing = TracingClient(run.tracking_uri)
    for i, why in chosen.items():
        tracing.set_trace_tag(traces[i], f"{TAG}queue", name)
        tracing.set_trace_tag(traces[i], f"{TAG}queue_reason", why)
    mine = {i: traces[i] for i in chosen}
    try:
        return Queue(name, chosen, mine, [], _review_queue(name, experiment_id, list(mine.values())), experiment_id)
    except Exception as exc:  # noqa: BLE001 - review queues are experimental in MLflow; the tag is the queue still
        return Queue(name, chosen, mine, [], None, experiment_id, f"no MLflow review queue ({type(exc).__name__}: {exc})")


def _experiment(run: GraphRun) -> str:
    config = json.loads((run.folder / "config.json").read_text())
    return str(config["tracking"]["experiment"])


def _review_queue(name: str, experiment_id: str, trace_ids: list[str]) -> str:
    """An MLflow review queue ``name`` asking ``human/converged`` over ``trace_ids`` (made, or added to)."""
    from mlflow.exceptions import MlflowException
    from mlflow.genai import label_schemas, review_queues

    try:
        schema = label_schemas.create_label_schema(
            HUMAN,
            type="feedback",
            input=label_schemas.InputPassFail(positive_label="converged", negative_label="did not converge"),
            instruction=QUESTION,
            enable_comment=True,
            experiment_id=experiment_id,
        )
    except MlflowException:
        schema = label_schemas.get_label_schema(HUMAN, experiment_id=experiment_id)
    found = [q for q in review_queues.list_review_queues(experiment_id=experiment_id) if q.name == name]
    queue = found[0] if found else None
    if queue is None:
        queue = review_queues.create_review_queue(
            name, queue_type="custom", schema_ids=[schema.schema_id], experiment_id=experiment_id
        )
    review_queues.add_items_to_review_queue(queue.queue_id, item_ids=trace_ids)
    return str(queue.queue_id)


def _pages(run: GraphRun, chosen: dict[int, str]) -> dict[int, str]:
    """Each chosen episode's page (written now, with its trace link, when it has none yet): episode -> path."""
    from dialectica.sim.view.write import write_graph_pages  # lazy: start-up (yaml)

    records = list(rec.read(run.run_dir / rec.FILE, run.graph, keep=False))
    write_graph_pages(
        records,
        run.folder / "view",
        ViewOptions(first=0, errors=0),
        full=rec.GraphRecords(run.run_dir / rec.FILE, run.graph).pick,
        episodes=set(chosen),
        traces=run.trace_links(),
    )
    return pages(run)


def make(run: GraphRun, chosen: dict[int, str], name: str) -> Queue:
    """Queues ``chosen`` (episode -> why) for people: traces, tags and review queue in MLflow when the run has a
    store, and in every case ``label_queue.json`` and the ``labels_<name>.csv`` template."""
    if run.tracking_uri and run.mlflow_run_id:
        queue = _traced(run, chosen, name)
    else:
        queue = Queue(name, chosen, {}, [], note="the run has no MLflow store (tracking=none): label in the file")
    path = run.folder / QUEUE
    before: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {"episodes": {}}
    before["episodes"] = requeued(before["episodes"], chosen)
    path.write_text(json.dumps(before, indent=1) + "\n")
    page_of = _pages(dataclasses.replace(run, experiment_id=queue.experiment_id, traces=queue.traces), chosen)
    template = run.folder / f"labels_{name}.csv"
    with template.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["episode", "label", "note", "labeler", "page"])
        for i in sorted(chosen):
            out.writerow([i, "", "", "", page_of.get(i, "")])
    return dataclasses.replace(queue, files=[path, template])
