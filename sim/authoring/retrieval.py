"""Vector search over a small corpus of passages (Sophia's canon, a committee's evidence).

Passages are embedded once per Library; ``embed`` is injected (MiniLM in the harness).
A hit is the passage's own mapping plus its ``similarity``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Embed = Callable[[list[str]], np.ndarray]


Hit = dict[str, Any]


class Library:
    """Cosine search over passages (mappings with at least ``id`` and ``text``)."""

    def __init__(self, passages: Sequence[dict[str, Any]], embed: Embed) -> None:
        self.passages = list(passages)
        self.embed = embed
        self._matrix: np.ndarray | None = None

    @property
    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            vectors = self.embed([p["text"] for p in self.passages])
            self._matrix = vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
        return self._matrix

    def scores(self, query: str) -> np.ndarray:
        vector = self.embed([query])[0]
        scores: np.ndarray = self.matrix @ (vector / max(float(np.linalg.norm(vector)), 1e-12))
        return scores

    def search(self, query: str, floor: float, k: int) -> tuple[list[Hit], float]:
        """Top ``k`` passages at or above ``floor``, and the best similarity found at all."""
        scores = self.scores(query)
        order = np.argsort(-scores, kind="stable")[:k]
        hits = [self._citation(i, float(scores[i])) for i in order if scores[i] >= floor]
        return hits, float(scores[order[0]]) if len(order) else float("nan")

    def _citation(self, i: int, score: float) -> Hit:
        return {**self.passages[i], "similarity": round(score, 4)}

    def analogies(self, query: str, topic: str) -> list[Hit]:
        """Analogy passages, the topic's own first, each group by similarity to ``query``."""
        scores = self.scores(query)
        picks = [i for i, p in enumerate(self.passages) if p.get("kind") == "analogy"]
        picks.sort(key=lambda i: (topic not in self.passages[i].get("topics", []), -scores[i]))
        return [self._citation(i, float(scores[i])) for i in picks]

    def readings(self, topic: str) -> list[Hit]:
        """One passage per distinct work on the topic, in corpus order."""
        seen: dict[str, int] = {}
        for i, p in enumerate(self.passages):
            if topic in p.get("topics", []):
                seen.setdefault(p["work"], i)
        return [self._citation(i, 0.0) for i in seen.values()]
