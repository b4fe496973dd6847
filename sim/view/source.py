"""Where the records come from: a run directory on disk, or an MLflow run whose artifacts hold them."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dialectica.metrics import FullRecord, Record
from dialectica.sim import records as rec
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.config import discovery
from dialectica.sim.view.topology import Topology

RUN_ID = re.compile(r"^[0-9a-f]{32}$")


class ViewError(ConfigError):
    """Bad input for the viewer; the message is one line naming the path or run id."""


@dataclass
class GraphRecords:
    """One graph's records (slim: no transcripts or artifacts), the folder its pages go to, its shape when
    known, and ``full(episodes)``: the full records of those episode indices, read from the file on demand."""

    graph: str
    records: Sequence[Record]
    out_dir: Path
    topology: Topology | None = None
    full: Callable[[set[int]], dict[int, FullRecord]] | None = None


def read_slim(path: Path) -> dict[str, rec.SlimRecords]:
    """Each graph's slim records of an ``episodes.jsonl``, streamed; a last line cut short by a kill ends it."""
    groups: dict[str, rec.SlimRecords] = {}
    try:
        for n, record in enumerate(rec.read(path), 1):
            episode = record.get("episode") if isinstance(record, dict) else None
            if isinstance(episode, bool) or not isinstance(episode, int):
                raise ViewError(f"line {n} of {path} is not an episode record (it has no episode index)")
            groups.setdefault(str(record.get("graph", "graph")), rec.SlimRecords()).add(rec.slim(record))
    except (OSError, UnicodeDecodeError) as exc:
        raise ViewError(f"cannot read episode records from {path}: {exc}") from exc
    return groups


def _topology(path: Path) -> Topology | None:
    try:
        return json.loads(path.read_text()) if path.exists() else None
    except (OSError, json.JSONDecodeError):
        return None


def _load_named_graphs(summary: Path) -> None:
    """Loads a graph the run named by import string (``graph=pkg.mod:SPEC`` in its summary's overrides), so that its
    pages get its own panel and endings; one that does not import from here is drawn with the generic view."""
    if not summary.is_file():
        return
    for override in json.loads(summary.read_text()).get("overrides", []):
        key, _, value = override.partition("=")
        if key.lstrip("+~") == "graph" and ":" in value:
            with contextlib.suppress(Exception):  # pages are drawn either way; the generic view is the fallback
                discovery.load(value)


def from_directory(path: Path, out: Path | None, shape: Callable[[str], Topology | None]) -> list[GraphRecords]:
    """A run directory (``episodes.jsonl`` of every graph) or one graph's folder in it; pages go to
    ``<graph folder>/view/`` unless ``out`` is given. ``shape(graph)`` is asked when no topology was saved."""
    folder = path.parent if path.is_file() else path
    source = path if path.is_file() else folder / "episodes.jsonl"
    only = None
    if not source.exists() and (folder.parent / "episodes.jsonl").exists():  # one graph's folder of a run
        source, only, folder = folder.parent / "episodes.jsonl", folder.name, folder.parent
    if not source.exists():
        raise ViewError(f"no episodes.jsonl in {folder}")
    _load_named_graphs(folder / "summary.json")
    groups = []
    for graph, records in read_slim(source).items():
        if only is not None and graph != only:
            continue
        graph_dir = folder / graph if (folder / graph).is_dir() else folder
        target = out / graph if out else graph_dir / "view"
        groups.append(
            GraphRecords(
                graph,
                records,
                target,
                _topology(graph_dir / "view" / "topology.json") or shape(graph),
                rec.GraphRecords(source, graph).pick,
            )
        )
    if not groups:
        raise ViewError(f"{source} holds no episode records")
    return groups


def from_mlflow(run_id: str, tracking_uri: str, out: Path, shape: Callable[[str], Topology | None]) -> list[GraphRecords]:
    """Downloads the run's ``episodes.jsonl`` (and ``view/topology.json`` if logged); pages go to ``out/<graph>/``."""
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient

    if tracking_uri.startswith("sqlite:///") and not Path(tracking_uri.removeprefix("sqlite:///")).exists():
        raise ViewError(f"no MLflow store at {tracking_uri} (looking for run {run_id}); pass --tracking-uri")
    client = MlflowClient(tracking_uri=tracking_uri)
    try:
        client.get_run(run_id)
        names = {a.path for a in client.list_artifacts(run_id)} | {a.path for a in client.list_artifacts(run_id, "view")}
    except MlflowException as exc:
        raise ViewError(f"MLflow run {run_id} not found in {tracking_uri}") from exc
    if "episodes.jsonl" not in names:
        raise ViewError(
            f"MLflow run {run_id} has no episodes.jsonl artifact (a sweep's parent run has none; pass a job's run)"
        )
    tmp = tempfile.mkdtemp(prefix="dialectica-view-")  # kept until exit: full records are read from it on demand
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    source = Path(client.download_artifacts(run_id, "episodes.jsonl", tmp))
    saved = (
        _topology(Path(client.download_artifacts(run_id, "view/topology.json", tmp)))
        if "view/topology.json" in names
        else None
    )
    return [
        GraphRecords(graph, recs, out / graph, saved or shape(graph), rec.GraphRecords(source, graph).pick)
        for graph, recs in read_slim(source).items()
    ]


def resolve(
    target: str, tracking_uri: str, out: Path | None, shape: Callable[[str], Topology | None]
) -> tuple[list[GraphRecords], Path]:
    """The records by graph and the folder for the index over them: a path that exists is read from disk,
    a 32-hex-digit id is an MLflow run, anything else is an error."""
    path = Path(target)
    if path.exists():
        return from_directory(path, out, shape), out or (path.parent if path.is_file() else path)
    if RUN_ID.match(target):
        out = out or Path("results") / "view" / target
        return from_mlflow(target, tracking_uri, out, shape), out
    raise ViewError(f"{target} is neither a run directory nor an MLflow run id")
