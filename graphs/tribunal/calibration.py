"""Behaviour statistics of the tribunal's judges and the scripted judges' persona knobs (``dialectica calibrate``).

The tribunal has no participant role: in the validity comparison an LLM plays its three judges (system roles),
so the statistics describe the bench. Every one is read from what both casts leave on record: the judges'
turns in the transcript (one per judge and round, with its opinions: criterion, score, cited evidence ids,
whether the reply scored that criterion), the Chief Justice's rulings (``rulings.json``: per round the
decision and the criteria it reopened) and the evidence list of ``report.md``. A knob is set on all three
judges alike; each keeps its own ``pull`` (the prosecutor's down, the defense's up), which is no knob, so
that a fit cannot erase the personas.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Iterable, Mapping
from typing import Any

from dialectica.calibration import Calibration, Knob
from dialectica.graphs.tribunal.scripted import JUDGE_KEYS, judge_personas
from dialectica.metrics import FullRecord
from dialectica.metrics.stats import mean

DOCS = {
    "spread": "max - min of a criterion's scores at the first reading (criteria with two scores or more)",
    "gap": "prosecutor's minus defense's score on a criterion at the first reading",
    "discrimination": "standard deviation of one judge's first-reading scores across the case's criteria",
    "disputed": "share of criteria the Chief Justice found contested after the first reading",
    "shift": "absolute change of a judge's score on a criterion the Chief Justice reopened",
    "narrowing": "drop of a reopened criterion's max - min from the round that reopened it to the next",
    "citations": "ids of the case's evidence cited per scored opinion (other cited strings not counted)",
    "unscored": "share of opinions whose criterion the judge's reply left unscored (a neutral 3, no voice)",
}

Scores = dict[int, dict[str, dict[str, int]]]  # round -> criterion -> judge -> score


_EVIDENCE = re.compile(r"^- (\S+) \([\w-]+, (?:found|not found)\): ", re.MULTILINE)  # report.md's evidence list


def _evidence(record: Mapping[str, Any]) -> set[str] | None:
    """The ids of the evidence on record (``report.md``'s evidence list); None without a report."""
    report = (record.get("artifacts") or {}).get("report.md")
    return set(_EVIDENCE.findall(report)) if report else None


def _scores(record: Mapping[str, Any]) -> tuple[Scores, list[list[str]], list[bool]]:
    """The parsed scores of an episode by round, criterion and judge, the cited ids of its parsed opinions
    (a criterion the reply did not score is no opinion: its neutral 3 is the graph's, not the judge's), and
    for every opinion whether the reply scored it."""
    scores: Scores = {}
    cited: list[list[str]] = []
    scored: list[bool] = []
    for turn in record["transcript"]:
        if turn.get("role") != "participant":
            continue
        for op in turn.get("opinions") or []:
            parsed = bool(op.get("parsed")) and not turn.get("fallback")
            scored.append(parsed)
            if parsed:
                scores.setdefault(int(turn["round"]), {}).setdefault(op["criterion"], {})[turn["speaker"]] = op["score"]
                cited.append([str(c) for c in op.get("cited") or []])
    return scores, cited, scored


def _rulings(record: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
    text = (record.get("artifacts") or {}).get("rulings.json")
    return {int(r["round"]): r for r in json.loads(text).get("rounds", [])} if text else {}


def _range(by_judge: Mapping[str, int]) -> float | None:
    return float(max(by_judge.values()) - min(by_judge.values())) if len(by_judge) >= 2 else None


def behaviour(records: Iterable[FullRecord]) -> dict[str, float]:
    """The judges' statistics over all episodes (error records skipped; NaN where nothing counts), from their
    scored opinions only; "first reading" is round 1, "reopened" a criterion the ruling of the round before
    sent back:

    - ``spread``: max - min of a criterion's first-reading scores, per criterion with two scores or more.
    - ``gap``: prosecutor's minus defense's first-reading score, per criterion both scored.
    - ``discrimination``: population sd of one judge's first-reading scores across criteria, per judge.
    - ``disputed``: share of criteria contested in the first ruling (spread over the threshold, or no quorum).
    - ``shift``: |score change| of a judge on a reopened criterion, per judge that scored it both times.
    - ``narrowing``: a reopened criterion's spread in the round that reopened it minus its spread after.
    - ``citations``: ids of the case's evidence (``report.md``'s list) cited per scored opinion, every round.
    - ``unscored``: share of a judge's opinions, every round, on a criterion its reply did not score.
    """
    spread: list[float] = []
    gap: list[float] = []
    discrimination: list[float] = []
    disputed: list[float] = []
    shift: list[float] = []
    narrowing: list[float] = []
    citations: list[float] = []
    unscored: list[float] = []
    for record in records:
        if record["termination_reason"] == "error":
            continue
        scores, cited, scored = _scores(record)
        unscored += [float(not s) for s in scored]
        evidence = _evidence(record)
        if evidence is not None:
            citations += [float(len(set(ids) & evidence)) for ids in cited]
        first = scores.get(1, {})
        for by_judge in first.values():
            if (r := _range(by_judge)) is not None:
                spread.append(r)
            if "prosecutor" in by_judge and "defense" in by_judge:
                gap.append(float(by_judge["prosecutor"] - by_judge["defense"]))
        judges = {j for by_judge in first.values() for j in by_judge}
        for judge in sorted(judges):
            own = [by_judge[judge] for by_judge in first.values() if judge in by_judge]
            if len(own) >= 2:
                discrimination.append(statistics.pstdev(own))
        rulings = _rulings(record)
        if 1 in rulings and rulings[1].get("verdicts"):
            disputed.append(len(rulings[1]["contested"]) / len(rulings[1]["verdicts"]))
        for r, ruling in sorted(rulings.items()):
            if ruling.get("decision") != "reevaluate" or r + 1 not in scores:
                continue
            before, after = scores.get(r, {}), scores[r + 1]
            for criterion in ruling.get("contested", []):
                was, now = before.get(criterion, {}), after.get(criterion, {})
                shift += [float(abs(now[j] - was[j])) for j in sorted(was.keys() & now.keys())]
                if (a := _range(was)) is not None and (b := _range(now)) is not None:
                    narrowing.append(a - b)
    return {
        "spread": mean(spread),
        "gap": mean(gap),
        "discrimination": mean(discrimination),
        "disputed": mean(disputed),
        "shift": mean(shift),
        "narrowing": mean(narrowing),
        "citations": mean(citations),
        "unscored": mean(unscored),
    }


def personas(scenario: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The three judges' persona mappings of a prepared scenario (``scenario["judges"]``), which the scripted
    judges read at the start of every episode."""
    judges = scenario.setdefault("judges", judge_personas(None))
    return [(name, judges[name]) for name in judges]


CALIBRATION = Calibration(
    behaviour=behaviour,
    knobs=(
        Knob("noise", 0.0, 2.5, doc=JUDGE_KEYS["noise"]),
        Knob("zeal_low", 0.0, 3.0, doc=JUDGE_KEYS["zeal_low"]),
        Knob("zeal_high", 0.0, 4.0, doc=JUDGE_KEYS["zeal_high"]),
        Knob("give_low", 0.0, 1.0, doc=JUDGE_KEYS["give_low"]),
        Knob("give_high", 0.0, 1.0, doc=JUDGE_KEYS["give_high"]),
        Knob("centre", 0.0, 1.0, doc=JUDGE_KEYS["centre"]),
        Knob("stand", 0.0, 1.0, doc=JUDGE_KEYS["stand"]),
        Knob("skip", 0.0, 0.9, doc=JUDGE_KEYS["skip"]),
    ),
    personas=personas,
    scales={"spread": 2.0, "gap": 2.0, "discrimination": 1.0, "shift": 1.0, "narrowing": 2.0, "citations": 1.0},
    docs=DOCS,
)
