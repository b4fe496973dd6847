"""MLflow tracking: one run per graph run, batched logging, runs never left RUNNING."""

from __future__ import annotations

import hashlib
import json
import math
import re
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from dialectica.sim.config.typed import TrackingConfig
from dialectica.sim.secrets import scrub, scrub_tree

_PARAM_BATCH = 100
_METRIC_BATCH = 1000
_UNSAFE = re.compile(r"[^\w\-. :/]")  # MLflow's names: alphanumerics, _ - . space : / (summary.json keeps the originals)


def safe_name(name: str) -> str:
    """``name`` as MLflow accepts it in a metric or param key: any other character becomes ``_``
    (``scenario/city_transit (v2)/convergence_rate`` -> ``scenario/city_transit _v2_/convergence_rate``)."""
    return _UNSAFE.sub("_", name)


class RunLog(Protocol):
    @property
    def run_id(self) -> str | None: ...

    def params(self, values: dict[str, Any]) -> None: ...
    def metrics(self, values: dict[str, float], step: int = 0) -> None: ...
    def metric_steps(self, rows: list[dict[str, float]], prefix: str) -> None: ...
    def artifact(self, path: Path, folder: str | None = None) -> None: ...
    def dataset(self, name: str, files: list[Path], source: str) -> None: ...
    def stopped(self, reason: str, description: str) -> None: ...


class NullRun:
    """What ``tracking=none`` gives: every call does nothing."""

    run_id = None

    def params(self, values: dict[str, Any]) -> None: ...
    def metrics(self, values: dict[str, float], step: int = 0) -> None: ...
    def metric_steps(self, rows: list[dict[str, float]], prefix: str) -> None: ...
    def artifact(self, path: Path, folder: str | None = None) -> None: ...
    def dataset(self, name: str, files: list[Path], source: str) -> None: ...
    def stopped(self, reason: str, description: str) -> None: ...


class MlflowRun:
    """One MLflow run written through ``MlflowClient.log_batch``."""

    def __init__(self, client: Any, run_id: str) -> None:
        self.client = client
        self.run_id = run_id
        self.status = "FINISHED"  # how the run ends when nothing raised

    def stopped(self, reason: str, description: str) -> None:
        """The run played fewer episodes than asked (a budget, ``reason``, stopped it): it ends KILLED, so that
        queries for finished runs leave it out, tagged ``stopped_by`` and described by ``description``."""
        self.status = "KILLED"
        self.client.set_tag(self.run_id, "stopped_by", reason)
        self.client.set_tag(self.run_id, "mlflow.note.content", scrub(description))

    def params(self, values: dict[str, Any]) -> None:
        from mlflow.entities import Param

        items = [Param(safe_name(scrub(k)), scrub(str(v))[:6000]) for k, v in sorted(values.items())]
        for i in range(0, len(items), _PARAM_BATCH):
            self.client.log_batch(self.run_id, params=items[i : i + _PARAM_BATCH])

    def _log(self, rows: list[tuple[str, float, int]]) -> None:
        from mlflow.entities import Metric

        now = int(time.time() * 1000)
        items = [Metric(safe_name(k), float(v), now, step) for k, v, step in rows if v is not None and math.isfinite(v)]
        for i in range(0, len(items), _METRIC_BATCH):
            self.client.log_batch(self.run_id, metrics=items[i : i + _METRIC_BATCH])

    def metrics(self, values: dict[str, float], step: int = 0) -> None:
        self._log([(k, v, step) for k, v in values.items()])

    def metric_steps(self, rows: list[dict[str, float]], prefix: str) -> None:
        """Logs row i's values as ``prefix/<key>`` at step i + 1 (round numbers), in one batch."""
        self._log([(f"{prefix}/{k}", v, i + 1) for i, row in enumerate(rows) for k, v in row.items()])

    def artifact(self, path: Path, folder: str | None = None) -> None:
        self.client.log_artifact(self.run_id, str(path), folder)

    def dataset(self, name: str, files: list[Path], source: str) -> None:
        """Logs ``files`` (a graph's scenario files) as the run's evaluation dataset input ``name``."""
        from mlflow.entities import Dataset, DatasetInput, InputTag

        digest = hashlib.sha256()
        for path in sorted(files):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        dataset = Dataset(
            name=name,
            digest=digest.hexdigest()[:16],
            source_type="local",
            source=json.dumps({"uri": scrub(source)}),
            profile=json.dumps({"num_rows": len(files)}),
            schema=json.dumps({"files": sorted(p.name for p in files)}),
        )
        inputs = [DatasetInput(dataset, tags=[InputTag("mlflow.data.context", "evaluation")])]
        try:
            self.client.log_inputs(self.run_id, datasets=inputs)
        except Exception as exc:
            if "UNIQUE constraint" not in str(exc) and "already exists" not in str(exc):
                raise
            self.client.log_inputs(self.run_id, datasets=inputs)  # the row exists now: this links it


def source_tags() -> dict[str, str]:
    """MLflow's source tags: what ran (this package's entry point) and, in a git checkout, its commit."""
    commit = git_commit()
    tags = {"mlflow.source.name": "dialectica", "mlflow.source.type": "LOCAL", "git_commit": commit}
    if commit != "unknown":
        tags["mlflow.source.git.commit"] = commit
    return tags


def git_commit() -> str:
    try:
        command = ["git", "rev-parse", "HEAD"]  # git from PATH, as the user runs it
        out = subprocess.run(command, cwd=Path.cwd(), capture_output=True, text=True, timeout=5)  # noqa: S603
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


class Tracker:
    """Opens one run per graph; ``enabled=False`` gives NullRun."""

    def __init__(self, config: TrackingConfig) -> None:
        self.config = config
        self._client: Any = None
        self._experiment_id: str | None = None

    def connect(self) -> tuple[Any, str]:
        """The client and experiment id, creating the store and the experiment on first use."""
        if self._client is None:
            from dialectica.sim.tracking.store import open_store  # lazy: start-up (ssl, http)

            self._client, self._experiment_id = open_store(self.config.uri, self.config.experiment)
        assert self._experiment_id is not None  # set together with the client
        return self._client, self._experiment_id

    def end_stale(self, run_dir: str, graph: str) -> None:
        """Marks KILLED the runs a killed process left RUNNING for this run directory and graph."""
        if not self.config.enabled:
            return
        client, experiment_id = self.connect()
        stale = client.search_runs(
            [experiment_id],
            filter_string=(f"tags.run_dir = '{run_dir}' and tags.graph = '{graph}' and attributes.status = 'RUNNING'"),
        )
        for run in stale:
            client.set_terminated(run.info.run_id, "KILLED")

    @contextmanager
    def run(self, name: str, tags: dict[str, str], description: str = "") -> Iterator[RunLog]:
        """A run that ends FINISHED, FAILED on an exception, or KILLED on Ctrl-C or when a budget stopped it
        (``RunLog.stopped``); ``description`` is the note MLflow shows on the run's page."""
        if not self.config.enabled:
            yield NullRun()
            return
        client, experiment_id = self.connect()
        parent = {"mlflow.parentRunId": self.config.parent_run_id} if self.config.parent_run_id else {}
        note = {"mlflow.note.content": description} if description else {}
        run = client.create_run(experiment_id, run_name=name, tags=scrub_tree({**source_tags(), **parent, **note, **tags}))
        try:
            log = MlflowRun(client, run.info.run_id)
            yield log
        except KeyboardInterrupt:
            client.set_terminated(run.info.run_id, "KILLED")
            raise
        except BaseException:
            client.set_terminated(run.info.run_id, "FAILED")
            raise
        client.set_terminated(run.info.run_id, log.status)


def open_parent(config: TrackingConfig, name: str, note: str) -> str:
    """A parent run for runs that belong together outside a Hydra sweep (a sequential sweep's configurations):
    its id, for their ``parent_run_id``; ``end_parent`` ends it."""
    client, experiment_id = Tracker(config).connect()
    run = client.create_run(
        experiment_id, run_name=name, tags=scrub_tree({**source_tags(), "sweep": "true", "mlflow.note.content": note})
    )
    return str(run.info.run_id)


def end_parent(
    config: TrackingConfig,
    run_id: str,
    artifact: Path | None,
    status: str = "FINISHED",
    tags: Mapping[str, str] | None = None,
    metrics: Mapping[str, float] | None = None,
) -> None:
    """Logs ``artifact``, ``tags`` and ``metrics`` (what the runs under it decided) to the parent run and ends it
    with ``status``."""
    client, _ = Tracker(config).connect()
    if artifact is not None:
        client.log_artifact(run_id, str(artifact))
    for key, value in (tags or {}).items():
        client.set_tag(run_id, key, scrub(value))
    for key, number in (metrics or {}).items():
        client.log_metric(run_id, key, number)
    client.set_terminated(run_id, status)
