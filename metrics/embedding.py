"""Embedding agreement: mean pairwise cosine of the participants' answers within a round.

An answer's vector is the mean of its sentences' vectors. Encoding sentences
rather than whole answers keeps long answers from being cut at the encoder's
token limit (256 word pieces for MiniLM), and lets every distinct sentence be
encoded once: scripted participants reuse sentences across rounds and episodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dialectica.metrics.agreement import pairwise_cosine
from dialectica.metrics.text import sentences

Embed = Callable[[list[str]], np.ndarray]


def round_answers(record: dict[str, Any]) -> dict[int, list[str]]:
    """Participant answers by round number, rounds in order; fallback answers are left out,
    so a round whose answers all failed maps to [] (and its agreement to NaN)."""
    rounds: dict[int, list[str]] = {}
    for turn in sorted(record.get("transcript", []), key=lambda t: t["round"]):
        if turn["role"] == "participant":
            rounds.setdefault(turn["round"], [])
            if not turn.get("fallback"):
                rounds[turn["round"]].append(turn["text"])
    return rounds


def embedding_agreement(records: Sequence[dict[str, Any]], embed: Embed) -> list[list[float]]:
    """Per record, the agreement of each round; every distinct sentence is encoded once, in one call.

    Rounds with fewer than two answers give NaN; a record without answers gives [].
    """
    grouped = [list(round_answers(r).values()) for r in records]
    split = {text: sentences(text) or [text] for rounds in grouped for answers in rounds for text in answers}
    distinct = sorted({s for parts in split.values() for s in parts})
    if not distinct:
        return [[] for _ in records]
    vectors = embed(distinct)
    index = {s: i for i, s in enumerate(distinct)}
    answer = {text: vectors[[index[s] for s in parts]].mean(axis=0) for text, parts in split.items()}
    return [
        [pairwise_cosine(np.stack([answer[t] for t in answers])) if answers else float("nan") for answers in rounds]
        for rounds in grouped
    ]


def add_embedding_agreement(record: Any, embed: Embed) -> None:
    """Stores each round's embedding agreement in an episode record's ``per_round`` and the last round's in
    its ``metrics`` (a record with no per-round entries or no answers is left as it is)."""
    transcript = [turn.model_dump() for turn in record.transcript]
    values = embedding_agreement([{"transcript": transcript}], embed)[0]
    by_round = dict(zip(round_answers({"transcript": transcript}), values, strict=True))
    if not by_round or not record.per_round:
        return
    for entry in record.per_round:
        entry["embedding_agreement"] = by_round.get(entry["round"], float("nan"))
    record.metrics["embedding_agreement"] = record.per_round[-1]["embedding_agreement"]
