"""Behaviour statistics of a learner and the scripted learners' persona knobs (``dialectica calibrate``).

Every statistic is read from what both casts leave on record: the learner's turns in the transcript, read
again as the Analyst reads them (:func:`read_learner`), and the Analyst's own reading of each turn in
``per_round`` (thesis revised or circled back to, frustration level).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dialectica.calibration import Calibration, Knob
from dialectica.graphs.maieutic.reading import read_learner
from dialectica.metrics import FullRecord
from dialectica.metrics.stats import mean

DOCS = {
    "revise": "share of learner turns that move to a new thesis",
    "circle": "share of learner turns that return to an earlier thesis",
    "give_up": "share of learner turns that admit ignorance or quit (I don't know, I give up), which ends the dialogue",
    "bare_why": 'share of learner turns that are a bare "Why?"',
    "defensive": "share of learner turns the Analyst reads as defensive (trick questions, already told you...)",
    "frustration": "the Analyst's frustration level (0-10) after a learner turn, on average",
    "turns": "learner turns per dialogue",
}


def behaviour(records: Iterable[FullRecord]) -> dict[str, float]:
    """Per learner turn, over all dialogues (error records skipped; NaN where nothing counts):

    - ``revise``: share of turns the Analyst reads as a move to a new thesis.
    - ``circle``: share of turns the Analyst reads as a return to an earlier thesis.
    - ``give_up``: share of turns that admit ignorance or quit ("I don't know", "I give up", "can we stop").
    - ``bare_why``: share of turns that are a bare "Why?" (or "How so?").
    - ``defensive``: share of turns with a defensive cue ("trick questions", "already told you").
    - ``frustration``: the Analyst's frustration level (0-10) after each turn, averaged.
    - ``turns``: learner turns per dialogue.
    """
    revise: list[float] = []
    circle: list[float] = []
    give_up: list[float] = []
    bare_why: list[float] = []
    defensive: list[float] = []
    frustration: list[float] = []
    turns: list[float] = []
    for record in records:
        if record["termination_reason"] == "error" or not record["transcript"]:
            continue
        said = [str(t.get("text", "")) for t in record["transcript"] if t.get("role") == "participant"]
        for text in said:
            reading = read_learner(text, None)
            give_up.append(float(reading.ignorance or reading.quits))
            bare_why.append(float(reading.bare_why))
            defensive.append(float(reading.sentiment == "defensive"))
        for entry in record["per_round"]:
            revise.append(float(bool(entry.get("revised"))))
            circle.append(float(bool(entry.get("circled"))))
            frustration.append(float(entry.get("frustration") or 0.0))
        turns.append(float(len(said)))
    return {
        "revise": mean(revise),
        "circle": mean(circle),
        "give_up": mean(give_up),
        "bare_why": mean(bare_why),
        "defensive": mean(defensive),
        "frustration": mean(frustration),
        "turns": mean(turns),
    }


def personas(scenario: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The learner persona of a prepared scenario, which the scripted learner reads on every turn."""
    persona = scenario["persona_spec"]
    return [(str(persona["id"]), persona)]


CALIBRATION = Calibration(
    behaviour=behaviour,
    knobs=(
        Knob("openness", 0.0, 1.0, doc="chance to move to a better thesis"),
        Knob("patience", 0.0, 1.0, doc="how little questioning frustrates"),
        Knob("fatigue_rate", 0.0, 0.3, doc="mean fatigue added per turn"),
        Knob("defensiveness", 0.0, 1.0, doc="chance to lash out once frustrated"),
        Knob("terseness", 0.0, 0.8, doc="chance to answer a bare Why?"),
        Knob("circling", 0.0, 0.8, doc="chance to return to an earlier thesis"),
        Knob("give_up", 0.0, 1.0, doc="chance to give up, raised by frustration"),
    ),
    personas=personas,
    scales={"frustration": 2.0, "turns": 3.0},
    docs=DOCS,
)
