"""ChiefJustice's deterministic rule engine: Security > Fact > Functionality.

Pure functions. Each rule that fires is recorded with the reason, so a verdict can
always be traced back to the evidence.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from dialectica.graphs.tribunal.params import TribunalParams

PRIORITY = {"security_override": 1, "fact_supremacy": 2, "functionality_weight": 3}


def judge_criterion(
    criterion: Mapping[str, Any],
    opinions: Sequence[Mapping[str, Any]],
    evidence: Mapping[str, Mapping[str, Any]],
    p: TribunalParams,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The verdict on one criterion and the rules applied, in priority order.

    Only parsed opinions are voices: a fallback (a criterion the judge's reply did not score) neither
    weighs in the score nor counts towards the quorum. Fact removes opinions that rest on evidence that
    was not found or contradicts the claim; Functionality weights the tech lead on functionality criteria;
    Security caps the result last, so no lower-priority rule can lift a score above the cap. With fewer
    voices than the quorum the spread and dispersion are undefined (None) and the criterion is contested.
    """
    cid = criterion["id"]
    voices = [op for op in opinions if op.get("parsed", True)]
    flaws = [e for e in evidence.values() if e["criterion"] == cid and e["found"] and "security_issue" in e.get("tags", [])]
    kept, overruled = _fact_supremacy(cid, voices, evidence, p)
    weights, weighted = _weights(criterion, kept, p)
    total = sum(weights.values())
    score = sum(weights[op["judge"]] * op["score"] for op in kept) / total if total else None
    score, capped = _security_cap(cid, score, flaws, p)
    trace = sorted([*overruled, *weighted, *capped], key=lambda t: t["priority"])
    scores = [op["score"] for op in voices]
    quorate = len(scores) >= p.voices_needed
    spread = max(scores) - min(scores) if quorate else None
    verdict = {
        "criterion": cid,
        "dimension": criterion["dimension"],
        "score": None if score is None else round(score, 3),
        "passed": score is not None and score >= p.pass_score,
        "voices": len(scores),
        "spread": spread,
        "dispersion": statistics.pstdev(scores) if quorate else None,
        "contested": spread is None or spread > p.dispersion_threshold,
        "rules": [t["rule"] for t in trace],
    }
    return verdict, trace


def _fact_supremacy(
    cid: str, voices: Sequence[Mapping[str, Any]], evidence: Mapping[str, Mapping[str, Any]], p: TribunalParams
) -> tuple[list[Mapping[str, Any]], list[dict[str, Any]]]:
    """The opinions kept (all of them when every one is overruled) and a rule for each high score overruled
    because it cites evidence not found or not supporting the claim."""
    kept, trace = [], []
    for op in voices:
        unsupported = [
            c
            for c in op["cited"]
            if c in evidence and (not evidence[c]["found"] or "claim_unsupported" in evidence[c].get("tags", []))
        ]
        if op["score"] >= p.overrule_score and unsupported:
            trace.append(
                {
                    "criterion": cid,
                    "rule": "fact_supremacy",
                    "priority": PRIORITY["fact_supremacy"],
                    "why": f"{op['judge']} scored {op['score']} citing {', '.join(unsupported)}, "
                    "which the evidence does not support; opinion overruled",
                }
            )
        else:
            kept.append(op)
    return kept or list(voices), trace  # all overruled: fall back to the whole bench


def _weights(
    criterion: Mapping[str, Any], kept: Sequence[Mapping[str, Any]], p: TribunalParams
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Each kept judge's weight (1; the tech lead's ``functionality_weight`` on a functionality criterion)."""
    weights = {op["judge"]: 1.0 for op in kept}
    if criterion["dimension"] != "functionality" or "tech_lead" not in weights:
        return weights, []
    weights["tech_lead"] = p.functionality_weight
    rule = {
        "criterion": criterion["id"],
        "rule": "functionality_weight",
        "priority": PRIORITY["functionality_weight"],
        "why": f"functionality criterion: the tech lead's opinion weighs {p.functionality_weight}",
    }
    return weights, [rule]


def _security_cap(
    cid: str, score: float | None, flaws: Sequence[Mapping[str, Any]], p: TribunalParams
) -> tuple[float | None, list[dict[str, Any]]]:
    """The score capped at ``security_cap`` where a confirmed security issue is found; applied last, so that no
    lower-priority rule lifts a score above the cap."""
    if not (flaws and score is not None and score > p.security_cap):
        return score, []
    rule = {
        "criterion": cid,
        "rule": "security_override",
        "priority": PRIORITY["security_override"],
        "why": f"confirmed security issue in {', '.join(e['id'] + ' (' + e['location'] + ')' for e in flaws)}"
        f" caps the score at {p.security_cap} (was {score:.2f})",
    }
    return float(p.security_cap), [rule]


def contested(verdicts: Sequence[Mapping[str, Any]]) -> list[str]:
    """Criteria the bench has not settled: spread above the threshold, or too few voices to tell."""
    return [v["criterion"] for v in verdicts if v["contested"]]


def decide(verdicts: Sequence[Mapping[str, Any]], done: int, p: TribunalParams) -> str:
    """``reevaluate`` while a criterion is contested and re-evaluations remain, else ``report``."""
    return "reevaluate" if contested(verdicts) and done < p.max_reevaluations else "report"
