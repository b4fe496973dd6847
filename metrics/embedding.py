"""Embedding agreement: mean pairwise cosine of the participants' answers within a round.

An answer's vector is the mean of its sentences' vectors. Encoding sentences rather than whole answers
keeps long answers from being cut at the encoder's limit (256 word pieces for all-MiniLM-L6-v2), and
lets every distinct sentence be encoded once: scripted participants reuse sentences across rounds and
episodes, so a run encodes about a tenth of what whole answers would cost (60 panel episodes: 7 s
against 64 s on 2 cores). Fallback answers are not voices; a round with fewer voices than its quorum
(the round entry's ``quorum``, else two) has no agreement (NaN).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from dialectica.metrics.agreement import pairwise_cosine
from dialectica.metrics.text import sentences

Embed = Callable[[list[str]], np.ndarray]


def round_answers(record: Mapping[str, Any]) -> dict[int, list[str]]:
    """Participant answers by round number, rounds in order; fallback answers are left out,
    so a round whose answers all failed maps to [] (and its agreement to NaN)."""
    rounds: dict[int, list[str]] = {}
    for turn in sorted(record.get("transcript", []), key=lambda t: t["round"]):
        if turn["role"] == "participant":
            rounds.setdefault(turn["round"], [])
            if not turn.get("fallback"):
                rounds[turn["round"]].append(turn["text"])
    return rounds


def _quorums(record: Mapping[str, Any]) -> dict[int, int]:
    return {e["round"]: int(e["quorum"]) for e in record.get("per_round", []) if e.get("quorum") is not None}


def embedding_agreement(records: Sequence[Mapping[str, Any]], embed: Embed) -> list[list[float]]:
    """Per record, the agreement of each round; every distinct sentence is encoded once, in one call.

    Rounds with fewer answers than their quorum give NaN; a record without participant turns gives [].
    """
    grouped = [round_answers(r) for r in records]
    split = {text: sentences(text) or [text] for rounds in grouped for answers in rounds.values() for text in answers}
    distinct = sorted({s for parts in split.values() for s in parts})
    if not distinct:  # every answer fell back (or there are none): each round, if any, has no agreement
        return [[float("nan")] * len(rounds) for rounds in grouped]
    vectors = embed(distinct)
    index = {s: i for i, s in enumerate(distinct)}
    answer = {text: vectors[[index[s] for s in parts]].mean(axis=0) for text, parts in split.items()}
    out = []
    for record, rounds in zip(records, grouped, strict=True):
        quorum = _quorums(record)
        out.append(
            [
                pairwise_cosine(np.stack([answer[t] for t in answers]), quorum.get(r, 2)) if answers else float("nan")
                for r, answers in rounds.items()
            ]
        )
    return out


def with_embedding_agreement(
    transcript: list[dict[str, Any]], per_round: list[dict[str, Any]], metrics: dict[str, Any], embed: Embed
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """An episode's ``per_round`` with each round's embedding agreement, and its ``metrics`` with the last round's;
    both as given when the episode has no per-round entries or no answers (new lists and dicts: nothing mutated)."""
    data = {"transcript": transcript, "per_round": per_round}
    values = embedding_agreement([data], embed)[0]
    by_round = dict(zip(round_answers(data), values, strict=True))
    if not by_round or not per_round:
        return per_round, metrics
    rounds = [{**entry, "embedding_agreement": by_round.get(entry["round"], float("nan"))} for entry in per_round]
    return rounds, {**metrics, "embedding_agreement": rounds[-1]["embedding_agreement"]}
