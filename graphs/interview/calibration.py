"""Behaviour statistics of an interviewee and the scripted experts' persona knobs (``dialectica calibrate``).

Every statistic is read from what both casts leave on record: the answers in the transcript and, per question,
the field asked and what the interpreter read from the answer (``ascr_turns.json``), scored against the
persona's truth (``truth.json``) with the field kinds of ``schema.json``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from dialectica.calibration import Calibration, Knob
from dialectica.graphs.interview.ascr import facts, merge_ascr
from dialectica.graphs.interview.interpret import _EVASIVE
from dialectica.metrics import FullRecord
from dialectica.metrics.stats import mean

DOCS = {
    "empty": "share of answers from which the interpreter reads no field (vague, off topic or garbled)",
    "evasive": "share of answers that hedge (hard to say, it depends, not sure...)",
    "off_target": "share of answers that fill some field but not the one asked about",
    "new_facts": "true facts the interview did not hold yet, per answer",
    "list_items": "items named per answer that fills an asked list field",
    "false_facts": "share of the facts named in answers that contradict the persona's truth",
}


def _answers(record: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(answer text, field asked, SCR read from it) per question of one episode."""
    texts = [str(t.get("text", "")) for t in record["transcript"] if t.get("role") == "participant"]
    turns = json.loads(record.get("artifacts", {}).get("ascr_turns.json", "[]"))
    return [(text, t["field"], t["scr"]) for text, t in zip(texts, turns, strict=False)]


def behaviour(records: Iterable[FullRecord]) -> dict[str, float]:
    """Per answer of the interviewee, over all episodes (error records skipped; NaN where nothing counts):

    - ``empty``: share of answers that fill no field.
    - ``evasive``: share of answers that hedge (the interpreter's evasive phrases).
    - ``off_target``: share of answers that fill a field, but not the one asked about.
    - ``new_facts``: true (field, value) facts new to the interview, per answer (free text is not a fact).
    - ``list_items``: items named in the asked field, per answer that fills an asked list field.
    - ``false_facts``: share of the facts named in answers that are not the persona's truth.
    """
    empty: list[float] = []
    evasive: list[float] = []
    off_target: list[float] = []
    new: list[float] = []
    items: list[float] = []
    named = wrong = 0
    for record in records:
        if record["termination_reason"] == "error" or not record["transcript"]:
            continue
        artifacts = record.get("artifacts", {})
        kinds = {f["name"]: f["kind"] for f in json.loads(artifacts.get("schema.json", "[]"))}
        truth = facts(json.loads(artifacts.get("truth.json", "{}")), kinds)
        known: dict[str, Any] = {}
        for text, asked, scr in _answers(record):
            empty.append(float(not scr))
            evasive.append(float(bool(_EVASIVE.search(text))))
            off_target.append(float(bool(scr) and asked not in scr))
            said = facts(scr, kinds)
            new.append(float(len((said & truth) - facts(known, kinds))))
            named, wrong = named + len(said), wrong + len(said - truth)
            if kinds.get(asked) == "list" and scr.get(asked):
                items.append(float(len(scr[asked])))
            known = merge_ascr(known, scr)
    return {
        "empty": mean(empty),
        "evasive": mean(evasive),
        "off_target": mean(off_target),
        "new_facts": mean(new),
        "list_items": mean(items),
        "false_facts": wrong / named if named else math.nan,
    }


def personas(scenario: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The expert persona of a prepared scenario, which the scripted expert reads on every answer."""
    persona = scenario["persona"]
    return [(str(persona["id"]), persona)]


CALIBRATION = Calibration(
    behaviour=behaviour,
    knobs=(
        Knob("vagueness", 0.0, 0.95, doc="chance an answer hedges"),
        Knob("off_topic", 0.0, 0.95, doc="chance an answer wanders off topic"),
        Knob("contradiction", 0.0, 0.6, doc="chance an answer states a wrong value"),
        Knob("items_per_answer", 1, 5, integer=True, doc="list items one answer reveals"),
    ),
    personas=personas,
    scales={"new_facts": 1.0, "list_items": 2.0},
    docs=DOCS,
)
