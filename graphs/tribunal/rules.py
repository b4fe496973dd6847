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

    Fact removes opinions that rest on evidence that was not found or contradicts the
    claim; Functionality weights the tech lead on functionality criteria; Security caps
    the result last, so no lower-priority rule can lift a score above the cap.
    """
    cid = criterion["id"]
    trace: list[dict[str, Any]] = []
    flaws = [e for e in evidence.values()
             if e["criterion"] == cid and e["found"] and "security_issue" in e.get("tags", [])]
    kept = []
    for op in opinions:
        unsupported = [c for c in op["cited"] if c in evidence and
                       (not evidence[c]["found"] or "claim_unsupported" in evidence[c].get("tags", []))]
        if op["score"] >= p.overrule_score and unsupported:
            trace.append({"criterion": cid, "rule": "fact_supremacy", "priority": PRIORITY["fact_supremacy"],
                          "why": f"{op['judge']} scored {op['score']} citing {', '.join(unsupported)}, "
                                 "which the evidence does not support; opinion overruled"})
        else:
            kept.append(op)
    kept = kept or list(opinions)  # all overruled: fall back to the whole bench
    weights = {op["judge"]: 1.0 for op in kept}
    if criterion["dimension"] == "functionality" and "tech_lead" in weights:
        weights["tech_lead"] = p.functionality_weight
        trace.append({"criterion": cid, "rule": "functionality_weight", "priority": PRIORITY["functionality_weight"],
                      "why": f"functionality criterion: the tech lead's opinion weighs {p.functionality_weight}"})
    total = sum(weights.values())
    score = sum(weights[op["judge"]] * op["score"] for op in kept) / total if total else float("nan")
    if flaws and score > p.security_cap:
        trace.append({"criterion": cid, "rule": "security_override", "priority": PRIORITY["security_override"],
                      "why": f"confirmed security issue in {', '.join(e['id'] + ' (' + e['location'] + ')' for e in flaws)}"
                             f" caps the score at {p.security_cap} (was {score:.2f})"})
        score = float(p.security_cap)
    scores = [op["score"] for op in opinions]
    spread = max(scores) - min(scores) if scores else 0
    verdict = {
        "criterion": cid, "dimension": criterion["dimension"], "score": round(score, 3), "passed": score >= p.pass_score,
        "spread": spread, "dispersion": statistics.pstdev(scores) if len(scores) > 1 else 0.0,
        "rules": [t["rule"] for t in sorted(trace, key=lambda t: t["priority"])],
    }
    return verdict, sorted(trace, key=lambda t: t["priority"])


def needs_reevaluation(verdicts: Sequence[Mapping[str, Any]], done: int, p: TribunalParams) -> list[str]:
    """Criteria whose bench disagreed by more than the threshold, if a re-evaluation is still allowed."""
    if done >= p.max_reevaluations:
        return []
    return [v["criterion"] for v in verdicts if v["spread"] > p.dispersion_threshold]
