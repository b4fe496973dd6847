"""The MLflow store, shared safely: any number of processes may open it at once.

- An SQLite store is created, migrated and given its experiment under a file lock beside the
  database (``mlflow.db.lock``), one process at a time; MLflow's own set-up races otherwise
  (``duplicate column name`` while two processes migrate a new file). A new store is built under
  another name and renamed into place, so a kill while MLflow makes its tables leaves none half made.
- Every client call that meets "database is locked" is retried a bounded number of times with
  jittered backoff: SQLite takes one writer at a time.
- A tracking server (``http://``, ``https://``) is probed before anything runs, so an unreachable
  one fails in seconds with one line, not after MLflow's minutes of retries.

Many machines should share a tracking server (``mlflow server``) rather than one SQLite file.
"""

from __future__ import annotations

import functools
import os
import random
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.secrets import scrub_url

LOCKED = ("database is locked", "database table is locked")
RETRIES = 12  # backoff 0.05 s doubling to at most 2 s: about 12 s of waiting in all
PROBE_TIMEOUT_S = 4.0
KIND, CLASSIC = "mlflow.experimentKind", "custom_model_development"
_HINT = "start one (mlflow server --host 127.0.0.1 --port 5000), or use tracking=sqlite (a local store) or tracking=none"


def sqlite_path(uri: str) -> Path | None:
    """The database file of an ``sqlite:///`` URI, else None."""
    return Path(uri.removeprefix("sqlite:///")) if uri.startswith("sqlite:///") else None


def artifact_root(uri: str) -> str | None:
    """Artifacts of an SQLite store sit beside its database file, not in the working directory."""
    db = sqlite_path(uri)
    if db is None:
        return None
    return (db.parent / "mlartifacts").resolve().as_uri()


def check_sqlite(db: Path, uri: str) -> None:
    """Raises a one-line ConfigError when the file ``db`` exists but is no usable MLflow store (not a database,
    cut short, or a database of something else); a missing or empty file is a store yet to be made."""
    if not db.exists() or (db.is_file() and db.stat().st_size == 0):
        return
    why = ""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            tables = {row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "experiments" not in tables:
                why = f"an SQLite database of something else: tables {', '.join(sorted(tables)[:4])}, no 'experiments'"
            elif tables:
                con.execute("SELECT count(*) FROM experiments").fetchone()
        finally:
            con.close()
    except sqlite3.Error as exc:
        why = f"{exc}"
    if why:
        raise ConfigError(
            f"tracking.uri={scrub_url(uri)}: {db} is not a usable MLflow store ({why}); move that file "
            "away, give another tracking.uri, or use tracking=none"
        )


def probe(uri: str, timeout: float = PROBE_TIMEOUT_S) -> None:
    """Raises a one-line ConfigError when ``uri`` names a tracking server that does not answer as MLflow does, or an
    SQLite file that is not a usable MLflow store."""
    db = sqlite_path(uri)
    if db is not None:
        check_sqlite(db, uri)
        return
    if not uri.startswith(("http://", "https://")):
        return
    # MLflow's HTTP client retries a dead server for minutes by default; a few tries are enough once it answered.
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "3")
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "30")
    try:
        with urllib.request.urlopen(uri.rstrip("/") + "/health", timeout=timeout):  # noqa: S310 - http(s) only
            return
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise ConfigError(
                f"tracking.uri={scrub_url(uri)}: the server refused the credentials (HTTP {exc.code}); "
                "set MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD or MLFLOW_TRACKING_TOKEN"
            ) from None
        if exc.code == 404:
            raise ConfigError(
                f"tracking.uri={scrub_url(uri)}: something answers there, but not as an MLflow "
                f"tracking server does (HTTP 404 at /health); {_HINT}"
            ) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConfigError(f"tracking.uri={scrub_url(uri)}: no MLflow server answers there ({reason}); {_HINT}") from None


def mlflow_ui(uri: str) -> str:
    """How to open the MLflow UI on the store at ``uri`` (credentials scrubbed), for the end of a run."""
    shown = scrub_url(uri)
    if uri.startswith(("http://", "https://")):
        return f"open {shown} in a browser"
    return f"mlflow ui --backend-store-uri {shown}   (then http://127.0.0.1:5000)"


def mlflow_ui_url(uri: str) -> str:
    """Where the MLflow UI on the store at ``uri`` is served: the server itself, or ``mlflow ui``'s default address."""
    return scrub_url(uri).rstrip("/") if uri.startswith(("http://", "https://")) else "http://127.0.0.1:5000"


def _lock(uri: str) -> AbstractContextManager[Any]:
    db = sqlite_path(uri)
    if db is None:
        return nullcontext()
    from filelock import FileLock

    db.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(f"{db}.lock")


def _create(db: Path) -> None:
    """Creates a new SQLite store beside ``db`` and renames it into place, so that a process killed while
    MLflow builds its tables leaves no half-made store (called under the store's lock)."""
    from mlflow.tracking import MlflowClient

    for stale in db.parent.glob(f".{db.name}.*.creating"):  # a killed creator's
        stale.unlink()
    partial = db.with_name(f".{db.name}.{os.getpid()}.creating")
    client = MlflowClient(tracking_uri=f"sqlite:///{partial}")  # builds every table
    engine = getattr(getattr(getattr(client, "_tracking_client", None), "store", None), "engine", None)  # MLflow internals
    if engine is not None:
        engine.dispose()
    os.replace(partial, db)


def is_locked(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) is SQLite refusing a second writer."""
    seen: BaseException | None = exc
    while seen is not None:
        if any(words in str(seen) for words in LOCKED):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class RetryingClient:
    """An ``MlflowClient`` whose calls are retried while SQLite is locked by another writer."""

    def __init__(self, client: Any, sleep: Callable[[float], None] = time.sleep, retries: int = RETRIES) -> None:
        self._client = client
        self._sleep = sleep
        self._retries = retries

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        def call(*args: Any, **kwargs: Any) -> Any:
            for attempt in range(self._retries):
                try:
                    return attr(*args, **kwargs)
                except Exception as exc:
                    if attempt == self._retries - 1 or not is_locked(exc):
                        raise
                    self._sleep(min(2.0, 0.05 * 2**attempt) * random.uniform(0.5, 1.5))
            raise AssertionError("unreachable")

        return call


def open_store(uri: str, experiment: str) -> tuple[RetryingClient, str]:
    """A client of the store at ``uri`` and the id of ``experiment``, creating either if missing.

    Raises:
        ConfigError: ``uri`` is a tracking server that does not answer.
    """
    from mlflow.tracking import MlflowClient

    probe(uri)
    with _lock(uri):  # the client creates and migrates the store; the experiment is made once
        db = sqlite_path(uri)
        if db is not None and not db.exists():
            _create(db)
        client = RetryingClient(MlflowClient(tracking_uri=uri))
        return client, _experiment(client, experiment, uri)


def _experiment(client: RetryingClient, name: str, uri: str) -> str:
    """The id of experiment ``name``, created if missing, tagged so that MLflow 3 opens its classic runs view
    (an experiment without the tag opens as a GenAI one)."""
    from mlflow.exceptions import MlflowException

    found = client.get_experiment_by_name(name)
    if found is None:
        try:
            return str(client.create_experiment(name, artifact_location=artifact_root(uri), tags={KIND: CLASSIC}))
        except MlflowException:  # a server's other client made it first
            found = client.get_experiment_by_name(name)
            if found is None:
                raise
    if found.tags.get(KIND) is None:
        client.set_experiment_tag(found.experiment_id, KIND, CLASSIC)
    return str(found.experiment_id)
