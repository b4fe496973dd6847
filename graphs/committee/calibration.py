"""Behaviour statistics of a committee's members and the scripted members' persona knobs (``dialectica calibrate``).

Every statistic is read from what both casts leave on record: each member statement's position, confidence,
cited evidence and rebuttal target as the graph parsed them, each vote, and the vote share per round.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from dialectica.calibration import Calibration, Knob
from dialectica.metrics import FullRecord
from dialectica.metrics.stats import mean

DOCS = {
    "position_change": "share of a member's statements whose position differs from its previous statement's",
    "confidence": "a member statement's stated confidence (0-1)",
    "citations": "evidence items cited per member statement",
    "rebuttals": "share of member statements aimed at another member",
    "opening_vote_share": "the majority position's share of the first round's votes",
    "vote_switch": "share of a member's votes (after its first) that differ from its previous vote",
    "rationale_agreement": "a round's semantic agreement of the vote rationales (mean pairwise cosine)",
}


def behaviour(records: Iterable[FullRecord]) -> dict[str, float]:
    """The members' behaviour over ``records`` (episodes that raised are skipped; fallback turns are no one's):

    - ``position_change``: per member, statements whose position differs from its previous statement's;
    - ``confidence``: the mean stated confidence of member statements;
    - ``citations``: evidence ids cited per member statement;
    - ``rebuttals``: share of member statements with a target;
    - ``opening_vote_share``: the first round's vote share of the majority position;
    - ``vote_switch``: per member, votes that differ from its previous vote;
    - ``rationale_agreement``: each round's semantic agreement of the vote rationales, as the detector scored it.
    """
    changes, confidence, citations, rebuttals, opening, switches, agreement = [], [], [], [], [], [], []
    for record in records:
        if record["termination_reason"] == "error":
            continue
        position: dict[str, str] = {}
        vote: dict[str, str] = {}
        for turn in record["transcript"]:
            if turn.get("fallback") or turn.get("role") not in ("member", "participant"):
                continue
            speaker = turn.get("speaker", "")
            if turn.get("vote") is not None:
                if speaker in vote:
                    switches.append(float(turn["vote"] != vote[speaker]))
                vote[speaker] = turn["vote"]
                continue
            if turn.get("position") is None:
                continue
            if speaker in position:
                changes.append(float(turn["position"] != position[speaker]))
            position[speaker] = turn["position"]
            if isinstance(turn.get("confidence"), int | float):
                confidence.append(float(turn["confidence"]))
            citations.append(float(len(turn.get("cited") or [])))
            rebuttals.append(float(bool(turn.get("target"))))
        rounds = record["per_round"]
        if rounds and isinstance(rounds[0].get("vote_share"), int | float):
            opening.append(float(rounds[0]["vote_share"]))
        agreement += [
            float(r["semantic_agreement"])
            for r in rounds
            if isinstance(r.get("semantic_agreement"), int | float) and not math.isnan(r["semantic_agreement"])
        ]
    return {
        "position_change": mean(changes),
        "confidence": mean(confidence),
        "citations": mean(citations),
        "rebuttals": mean(rebuttals),
        "opening_vote_share": mean(opening),
        "vote_switch": mean(switches),
        "rationale_agreement": mean(agreement),
    }


def personas(scenario: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The members' persona mappings, which the scripted members read."""
    return [(member["id"], member) for member in scenario["members"]]


CALIBRATION = Calibration(
    behaviour=behaviour,
    knobs=(
        Knob("confidence", 0.0, 1.0, doc="a member's stated confidence at the start"),
        Knob("persuadability", 0.0, 1.0, doc="chance a member yields to stronger evidence cited against it"),
        Knob("conformity", 0.0, 1.0, doc="chance a member's vote rests on the strongest evidence others cited"),
    ),
    personas=personas,
    scales={"citations": 2.0},
    docs=DOCS,
)
