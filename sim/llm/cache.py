"""The on-disk call cache: one reply per (model, parameters, messages, seed), shared across runs.

A sweep that changes only thresholds asks many identical questions; those come back from here.
SQLite in WAL mode lets the jobs of a parallel sweep read and write the same file. ``export`` writes its calls to
a gzipped JSON Lines file and ``merge`` adds such a file's calls to a cache (``dialectica cache``): a model job that
outlives a machine's session goes on from its calls on the next one.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any


def cache_key(payload: dict[str, Any]) -> str:
    """A stable digest of everything that decides a reply."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class CallCache:
    """A persistent key -> JSON value map, safe to share between threads."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM calls WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO calls VALUES (?, ?)", (key, json.dumps(value)))

    def rows(self) -> Iterator[tuple[str, str]]:
        """Every (key, JSON value), in key order."""
        with self._lock:
            found = self._db.execute("SELECT key, value FROM calls ORDER BY key").fetchall()
        yield from found

    def add(self, rows: Iterator[tuple[str, str]]) -> int:
        """Adds the rows whose keys it lacks (a key decides its reply: one it holds stays); returns how many."""
        with self._lock:
            before = self._db.total_changes
            self._db.executemany("INSERT OR IGNORE INTO calls VALUES (?, ?)", rows)
            return self._db.total_changes - before


def export(cache: CallCache, path: Path) -> int:
    """Writes every call of ``cache`` to ``path`` (gzipped JSON Lines, one ``{"key", "value"}`` a line, in key
    order), whole or not at all; returns how many."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    n = 0
    # mtime 0 and no file name in the header: the same calls give the same bytes
    with open(partial, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as packed:
        for key, value in cache.rows():
            packed.write((json.dumps({"key": key, "value": json.loads(value)}, ensure_ascii=False) + "\n").encode())
            n += 1
    os.replace(partial, path)
    return n


def merge(cache: CallCache, path: Path) -> tuple[int, int]:
    """Adds the calls in ``path`` (written by ``export``) that ``cache`` lacks; returns (added, read).

    Raises:
        ValueError: a line that is not an exported call (nothing is added then).
    """
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                row = json.loads(line)
                rows.append((str(row["key"]), json.dumps(row["value"])))
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f'line {number} is not a cached call ({{"key": ..., "value": ...}})') from exc
    return cache.add(iter(rows)), len(rows)


_OPENING = threading.Lock()


def open_cache(path: str) -> CallCache:
    """One cache object per file and process, even when episodes in flight ask for it at once (two connections
    switching a new file to WAL together can fail with "database is locked")."""
    with _OPENING:
        return _open(path)


@lru_cache(maxsize=8)
def _open(path: str) -> CallCache:
    return CallCache(Path(path))
