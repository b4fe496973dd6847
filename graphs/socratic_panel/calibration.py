"""Behaviour statistics of a panel's experts and the scripted experts' persona knobs (``dialectica calibrate``).

Every statistic is read from what both casts leave on record: each expert answer's claims as the moderator
read them (the turn's ``claims``), the panel's agreement per round, and the episode's assumption and
evidence counts, which the graph's own reading computes from the answers whoever wrote them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dialectica.calibration import Calibration, Knob
from dialectica.metrics import FullRecord
from dialectica.metrics.stats import mean

DOCS = {
    "claims_per_answer": "claims the moderator reads from one expert answer",
    "stance_change": "share of an expert's claims that differ from its previous answer (1 - Jaccard of the two sets)",
    "agreement_first": "the panel's Jaccard agreement after the first round",
    "agreement_drift": "the panel's Jaccard agreement at the last round minus that at the first",
    "assumptions_per_round": "assumptions surfaced per round (the panel's own reading of the answers)",
    "evidence_completeness": "share of the surfaced assumptions that some cited evidence bears on, at the end",
}


def _distance(a: set[str], b: set[str]) -> float:
    return 1 - len(a & b) / len(a | b) if a | b else 0.0


def behaviour(records: Iterable[FullRecord]) -> dict[str, float]:
    """The experts' behaviour over ``records`` (episodes that raised are skipped):

    - ``claims_per_answer``: claims the moderator reads from one expert answer (not a fallback);
    - ``stance_change``: per expert and round after its first, 1 - Jaccard of its claims and its previous ones;
    - ``agreement_first``: the first round's Jaccard agreement;
    - ``agreement_drift``: the last round's Jaccard agreement minus the first's;
    - ``assumptions_per_round``: assumptions surfaced in the episode over its rounds;
    - ``evidence_completeness``: the episode's final evidence completeness.
    """
    claims: list[float] = []
    changes: list[float] = []
    first: list[float] = []
    drift: list[float] = []
    surfaced: list[float] = []
    evidence: list[float] = []
    for record in records:
        if record["termination_reason"] == "error":
            continue
        last: dict[str, set[str]] = {}
        for turn in record["transcript"]:
            if turn.get("role") != "participant" or turn.get("fallback"):
                continue
            own = set(turn.get("claims") or [])
            claims.append(float(len(turn.get("claims") or [])))
            if turn["speaker"] in last:
                changes.append(_distance(last[turn["speaker"]], own))
            last[turn["speaker"]] = own
        agreement = [
            r["jaccard_agreement"] for r in record["per_round"] if isinstance(r.get("jaccard_agreement"), int | float)
        ]
        if agreement:
            first.append(agreement[0])
            drift.append(agreement[-1] - agreement[0])
        metrics = record["metrics"]
        if rounds := metrics.get("rounds"):
            surfaced.append((metrics.get("assumptions") or 0) / rounds)
        if (completeness := metrics.get("evidence_completeness")) is not None:
            evidence.append(completeness)
    return {
        "claims_per_answer": mean(claims),
        "stance_change": mean(changes),
        "agreement_first": mean(first),
        "agreement_drift": mean(drift),
        "assumptions_per_round": mean(surfaced),
        "evidence_completeness": mean(evidence),
    }


def personas(scenario: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The experts' persona mappings, which the scripted experts read."""
    return [(expert["id"], expert) for expert in scenario["experts"]]


CALIBRATION = Calibration(
    behaviour=behaviour,
    knobs=(
        Knob("stubbornness", 0.0, 1.0, doc="how little an expert yields to its peers"),
        Knob("persuadability", 0.0, 1.0, doc="how readily it adopts claims its peers voice"),
        Knob("openness", 0.0, 1.0, doc="how readily it reveals the assumptions beneath its claims"),
        Knob("verbosity", 0.0, 1.0, doc="how often it cites evidence (below 0.4: three sentences at most)"),
    ),
    personas=personas,
    scales={"claims_per_answer": 2.0, "assumptions_per_round": 1.0},
    docs=DOCS,
)
