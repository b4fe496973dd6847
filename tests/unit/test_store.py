"""The MLflow store wrapper: retries only while SQLite is locked, bounded; one-line errors for dead servers."""

from __future__ import annotations

import sqlite3

import pytest

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.tracking.store import RetryingClient, is_locked, probe, sqlite_path


class Flaky:
    def __init__(self, failures: list[Exception]) -> None:
        self.failures = failures
        self.calls = 0
        self.name = "not callable"

    def create_run(self, experiment_id: str) -> str:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return f"run in {experiment_id}"


def _wrapped(exc: Exception) -> Exception:
    try:
        try:
            raise exc
        except sqlite3.OperationalError as inner:
            raise RuntimeError("(sqlalchemy) statement failed") from inner
    except RuntimeError as outer:
        return outer


def test_locked_calls_are_retried_until_they_pass():
    sleeps: list[float] = []
    inner = Flaky([sqlite3.OperationalError("database is locked"), _wrapped(sqlite3.OperationalError("database is locked"))])
    client = RetryingClient(inner, sleep=sleeps.append)
    assert client.create_run("7") == "run in 7"
    assert inner.calls == 3 and len(sleeps) == 2
    assert client.name == "not callable"  # attributes pass through


def test_other_errors_are_not_retried():
    inner = Flaky([sqlite3.OperationalError("no such table: runs")])
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        RetryingClient(inner, sleep=lambda s: None).create_run("7")
    assert inner.calls == 1


def test_retries_are_bounded():
    inner = Flaky([sqlite3.OperationalError("database is locked") for _ in range(10)])
    with pytest.raises(sqlite3.OperationalError):
        RetryingClient(inner, sleep=lambda s: None, retries=4).create_run("7")
    assert inner.calls == 4


def test_is_locked_follows_the_cause_chain():
    assert is_locked(_wrapped(sqlite3.OperationalError("database is locked")))
    assert not is_locked(_wrapped(sqlite3.OperationalError("disk I/O error")))


def test_an_unreachable_server_is_one_line():
    with pytest.raises(ConfigError) as caught:
        probe("http://user:pw@127.0.0.1:9", timeout=2)
    message = str(caught.value)
    assert "\n" not in message and "no MLflow server answers there" in message and "tracking=none" in message
    assert "pw" not in message and "tracking.uri=http://***@127.0.0.1:9" in message


def test_local_stores_are_not_probed():
    probe("sqlite:////nonexistent/dir/mlflow.db")
    probe("file:///tmp/mlruns")
    assert sqlite_path("sqlite:////a/b.db") is not None and sqlite_path("http://h") is None
