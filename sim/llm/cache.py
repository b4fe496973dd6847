"""The on-disk call cache: one reply per (model, parameters, messages, seed), shared across runs.

A sweep that changes only thresholds asks many identical questions; those come back from here.
SQLite in WAL mode lets the jobs of a parallel sweep read and write the same file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
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


_OPENING = threading.Lock()


def open_cache(path: str) -> CallCache:
    """One cache object per file and process, even when episodes in flight ask for it at once (two connections
    switching a new file to WAL together can fail with "database is locked")."""
    with _OPENING:
        return _open(path)


@lru_cache(maxsize=8)
def _open(path: str) -> CallCache:
    return CallCache(Path(path))
