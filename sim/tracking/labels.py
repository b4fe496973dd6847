"""People's labels of episodes, from MLflow and from files, read into one list.

A label is a person's judgment of one episode: did it converge (did the user get what they came for)? Labels
come three ways and land in one list (``collect``):

- **MLflow**: feedback named ``human/converged`` (``traces.HUMAN``) on an episode's trace, added on the trace's
  page in MLflow's UI (feedback, a boolean) or through a review queue that ``dialectica label``
  made; the labeler is the feedback's source id, its rationale the note.
- **A file**: CSV with a header, or JSONL, with ``episode`` and ``label`` (true/false, yes/no, 1/0,
  pass/fail), and optional ``note``, ``labeler`` and ``graph`` (needed when the run holds several graphs); a row
  whose ``label`` is empty is an episode not labeled yet.

Each (graph, episode, labeler) holds one label, the newest: a file's rows date from the file's last change, an
MLflow label from its last update; two labelers of one episode are kept apart.
``dialectica agreement`` posts the labels it read from files to the episodes' traces (``post``), so MLflow's UI
shows every label beside the verdicts, wherever it was given.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.tracking.traces import HUMAN, TAG

TRUE = ("true", "yes", "1", "pass", "passed", "y", "t")
FALSE = ("false", "no", "0", "fail", "failed", "n", "f")
COLUMNS = ("episode", "label", "note", "labeler", "graph")


@dataclass(frozen=True)
class Label:
    """One person's judgment of one episode.

    Attributes:
        graph, episode: Which episode.
        value: The person found it converged.
        labeler: Who (a file's ``labeler`` column, else the file's name; MLflow's source id).
        note: Why, in their words.
        source: ``mlflow`` or the file's path.
        at: When it was given, in seconds since the epoch (a file's: its last change).
        posted_from: An MLflow label that ``post`` copied from a file: the file's name.
    """

    graph: str
    episode: int
    value: bool
    labeler: str
    note: str = ""
    source: str = "mlflow"
    at: float = 0.0
    posted_from: str = ""


def truth(value: Any) -> bool | None:
    """A label's value as a bool; None when it is none of the accepted spellings."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return True if text in TRUE else False if text in FALSE else None


def _rows(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    if path.suffix in (".jsonl", ".json"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ConfigError(f"labels file {path} line {number}: not JSON ({exc.msg})") from None
                if not isinstance(row, dict):
                    raise ConfigError(
                        f"labels file {path} line {number}: a JSON object per line, like {{'episode': 3, 'label': true}}"
                    )
                yield number, row
        return
    with path.open(newline="") as handle:
        yield from enumerate(csv.DictReader(handle), 2)


def read_file(path: Path, graphs: Sequence[str], given: bool = True) -> list[Label]:
    """The labels in a CSV or JSONL file, for a run holding ``graphs``; a file found in the run's folder rather
    than ``given`` (``labels_*.csv``) holds none when it has no ``label`` column.

    Raises:
        ConfigError: one line naming the file, the line and the bad column, with the valid values.
    """
    if not path.is_file():
        raise ConfigError(f"labels={path}: no such file; give a CSV or JSONL file with columns {', '.join(COLUMNS)}")
    labels, rows = [], list(_rows(path))
    seen: dict[tuple[str, int, str], tuple[int, Label]] = {}
    columns = sorted({key for _, row in rows for key in row if key})
    if rows and "label" not in columns:
        if not given:
            return []
        raise ConfigError(
            f"labels file {path}: no label column (it has {', '.join(columns) or 'none'}); columns: {', '.join(COLUMNS)} "
            "(episode and label needed)"
        )
    for number, row in rows:
        where = f"labels file {path} line {number}"
        if row.get("label") in (None, "") and row.get("episode") not in (None, ""):
            continue  # not labeled yet (a `dialectica label` template's row)
        missing = [k for k in ("episode", "label") if row.get(k) in (None, "")]
        if missing:
            raise ConfigError(
                f"{where}: no {' or '.join(missing)}; columns: {', '.join(COLUMNS)} (episode and label needed)"
            )
        value = truth(row["label"])
        if value is None:
            raise ConfigError(
                f"{where}: label={row['label']!r} is invalid; valid values: true/false, yes/no, y/n, t/f, 1/0, "
                "pass/fail, passed/failed (any case)"
            )
        try:
            episode = int(row["episode"])
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: episode={row['episode']!r} is invalid; valid values: an episode index") from None
        graph = str(row.get("graph") or (graphs[0] if len(graphs) == 1 else ""))
        if graph not in graphs:
            raise ConfigError(
                f"{where}: graph={graph!r} is not in the run; valid values: {', '.join(graphs)}"
                if graph
                else f"{where}: the run holds several graphs; add a graph column ({', '.join(graphs)})"
            )
        labeler = str(row.get("labeler") or path.stem)
        label = Label(graph, episode, value, labeler, str(row.get("note") or ""), str(path), path.stat().st_mtime)
        key = (graph, episode, labeler)
        if key in seen and (seen[key][1].value, seen[key][1].note) != (value, label.note):
            raise ConfigError(
                f"labels file {path} lines {seen[key][0]} and {number}: two different labels of episode {episode} by "
                f"{labeler}; keep one"
            )
        seen[key] = (number, label)
        labels.append(label)
    return labels


def from_mlflow(uri: str, run_id: str, graph: str) -> list[Label]:
    """The ``human/converged`` feedback on the traces of MLflow run ``run_id`` (one graph's episodes), and on those
    of the graph's earlier MLflow runs in the same run folder (a run resumed after an interruption or a budget
    holds its first episodes' traces there)."""
    from mlflow.tracing.client import TracingClient
    from mlflow.tracking import MlflowClient

    run = MlflowClient(uri).get_run(run_id)
    experiment_id, run_dir = run.info.experiment_id, run.data.tags.get("run_dir")
    found = (
        MlflowClient(uri).search_runs([experiment_id], f'tags.run_dir = "{run_dir}" and tags.graph = "{graph}"')
        if run_dir and '"' not in run_dir + graph
        else []
    )
    # not another run's made in that folder since; a part cut short before its params were logged (interrupted) is
    # the resumed run's first part, which resume checked against the folder's fingerprint
    earlier = [r for r in found if not r.data.params or _config(r.data.params) == _config(run.data.params)]
    client = TracingClient(uri)
    labels = []
    for one in dict.fromkeys([*(r.info.run_id for r in earlier), run_id]):
        token = None
        while True:
            page = client.search_traces(locations=[experiment_id], run_id=one, include_spans=False, page_token=token)
            labels += [lab for trace in page for lab in _human(trace.info, graph)]
            token = page.token
            if not token:
                break
    return labels


def _config(params: Mapping[str, str]) -> dict[str, str]:
    """A run's logged config less how it ran and how many episodes: a resumed run's and its first part's agree."""
    from dialectica.sim.config.typed import run_control  # lazy: start-up (omegaconf, yaml)

    return {k: _number(v) for k, v in params.items() if not run_control(k) and k != "episodes"}


def _number(value: str) -> str:
    """``10`` and ``10.0`` alike, as resume's fingerprint reads them."""
    try:
        return repr(float(value))
    except ValueError:
        return value


def _human(info: Any, graph: str) -> list[Label]:
    """The ``human/converged`` labels on one trace (its ``TraceInfo``), oldest first; none on a trace of no episode."""
    episode = info.tags.get(f"{TAG}episode")
    if episode is None:
        return []
    labels = []
    for found in sorted(info.assessments or [], key=lambda a: a.last_update_time_ms or 0):
        value = truth(getattr(found, "value", None)) if found.name == HUMAN and found.valid is not False else None
        if value is not None:
            who = (found.source.source_id if found.source else "") or "mlflow"
            at = (found.last_update_time_ms or 0) / 1000
            posted = str((found.metadata or {}).get("file", ""))
            labels.append(Label(graph, int(episode), value, who, found.rationale or "", at=at, posted_from=posted))
    return labels


def post(uri: str, traces: Mapping[int, str], labels: Iterable[Label]) -> tuple[int, list[int]]:
    """Labels read from files onto their episodes' traces as ``human/converged`` feedback (source HUMAN, the
    labeler as source id, the note as rationale). A label the trace holds already from that labeler is left as it
    is; one it holds with another value or note is overridden (the old one kept, marked invalid).

    Returns:
        How many labels were posted, and the labeled episodes that have no trace (sorted).
    """
    from mlflow.entities import AssessmentSource, Feedback
    from mlflow.tracing.client import TracingClient

    client, posted, untraced = TracingClient(uri), 0, set()
    for lab in labels:
        if lab.source == "mlflow":
            continue
        trace_id = traces.get(lab.episode)
        if trace_id is None:
            untraced.add(lab.episode)
            continue
        held = [
            a
            for a in client.get_trace_info(trace_id).assessments or []
            if a.name == HUMAN and a.valid is not False and a.source and a.source.source_id == lab.labeler
        ]
        last = max(held, key=lambda a: a.last_update_time_ms or 0, default=None)
        if last is not None and truth(getattr(last, "value", None)) is lab.value and (last.rationale or "") == lab.note:
            continue
        feedback = Feedback(
            name=HUMAN,
            value=lab.value,
            rationale=lab.note or None,
            source=AssessmentSource(source_type="HUMAN", source_id=lab.labeler),
            metadata={"file": Path(lab.source).name},
            overrides=last.assessment_id if last is not None else None,
        )
        client.log_assessment(trace_id, feedback)
        posted += 1
    return posted, sorted(untraced)


def dated(file_labels: Iterable[Label], from_mlflow: Iterable[Label]) -> list[Label]:
    """A file's labels, each dated by the copy ``post`` made of it while that copy holds (so that a label given
    later in MLflow's UI is newer than a row unchanged since), else by the file's last change (an edited row)."""
    copies = {
        (lab.graph, lab.episode, lab.labeler, lab.value, lab.note, lab.posted_from): lab.at
        for lab in from_mlflow
        if lab.posted_from
    }
    return [
        dataclasses.replace(
            lab, at=copies.get((lab.graph, lab.episode, lab.labeler, lab.value, lab.note, Path(lab.source).name), lab.at)
        )
        for lab in file_labels
    ]


def merged(labels: Iterable[Label]) -> list[Label]:
    """One label per (graph, episode, labeler), the newest (``at``; of labels given at once, the last);
    ordered by graph, episode, labeler."""
    kept: dict[tuple[str, int, str], Label] = {}
    for lab in labels:
        key = (lab.graph, lab.episode, lab.labeler)
        if key not in kept or lab.at >= kept[key].at:
            kept[key] = lab
    return [kept[key] for key in sorted(kept)]


def consensus(labels: Iterable[Label]) -> dict[tuple[str, int], bool]:
    """Each labeled episode's label: its labelers' majority; an episode whose labelers are split evenly has none."""
    votes: dict[tuple[str, int], list[bool]] = {}
    for lab in labels:
        votes.setdefault((lab.graph, lab.episode), []).append(lab.value)
    return {key: sum(v) * 2 > len(v) for key, v in votes.items() if sum(v) * 2 != len(v)}
