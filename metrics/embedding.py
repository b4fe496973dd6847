"""Embedding agreement: mean pairwise cosine of the participants' answers within a round."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from metrics.agreement import pairwise_cosine

Embed = Callable[[list[str]], np.ndarray]


def round_answers(record: dict[str, Any]) -> list[list[str]]:
    """Participant answers grouped by round, in round order (fallback answers excluded)."""
    rounds: dict[int, list[str]] = {}
    for turn in record.get("transcript", []):
        if turn["role"] == "participant" and not turn.get("fallback"):
            rounds.setdefault(turn["round"], []).append(turn["text"])
    return [rounds[r] for r in sorted(rounds)]


def embedding_agreement(records: Sequence[dict[str, Any]], embed: Embed) -> list[list[float]]:
    """Per record, the agreement of each round; every distinct text is encoded once, in one batch.

    Rounds with fewer than two answers give NaN; a record without answers gives [].
    """
    grouped = [round_answers(r) for r in records]
    distinct = sorted({text for rounds in grouped for answers in rounds for text in answers})
    if not distinct:
        return [[] for _ in records]
    vectors = embed(distinct)
    index = {text: i for i, text in enumerate(distinct)}
    return [[pairwise_cosine(vectors[[index[t] for t in answers]]) for answers in rounds] for rounds in grouped]
