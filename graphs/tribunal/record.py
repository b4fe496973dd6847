"""What a tribunal episode leaves in its record, enough to recompute every metric from it.

- transcript: one ``participant`` turn per judge and round, with its parsed arguments as ``text``, its
  ``opinions`` (criterion, score, cited evidence ids, parsed), ``fallback`` (no criterion parsed: not a
  voice) and ``claims`` (the claim set ``jaccard_agreement`` compares);
- per_round: voices, quorum and the bench's measures for each round;
- artifacts: ``report.md`` and ``rulings.json`` (per round: the Chief Justice's decision, contested
  criteria, verdicts and the rules fired, with the thresholds they were judged by).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from dialectica.graph import EpisodeOutcome, TerminationReason
from dialectica.graphs.tribunal.bench import JUDGES
from dialectica.graphs.tribunal.params import TribunalParams
from dialectica.graphs.tribunal.rules import PRIORITY
from dialectica.metrics.agreement import jaccard, pairwise_jaccard
from dialectica.metrics.text import claim_set

NAN = float("nan")
FALLBACK_TEXT = "[no opinion could be read from this judge's reply; every criterion got a neutral 3]"


def bench_measures(opinions: Sequence[dict[str, Any]], quorum: int) -> dict[str, float]:
    """One round's parsed opinions, criterion by criterion, over the criteria with at least ``quorum`` of them:

    ``citation_jaccard``: mean Jaccard of the cited evidence ids over every pair of opinions on a criterion;
    ``score_dispersion``: mean population standard deviation of a criterion's scores;
    ``score_spread``: the largest max - min of a criterion's scores (what ``dispersion_threshold`` bounds).
    NaN when no criterion has a quorum.
    """
    groups: dict[str, list[dict[str, Any]]] = {}
    for op in opinions:
        if op["parsed"]:
            groups.setdefault(op["criterion"], []).append(op)
    quorate = [ops for ops in groups.values() if len(ops) >= quorum]
    pairs = [jaccard(set(a["cited"]), set(b["cited"])) for ops in quorate for a, b in combinations(ops, 2)]
    scores = [[o["score"] for o in ops] for ops in quorate]
    return {
        "citation_jaccard": statistics.fmean(pairs) if pairs else NAN,
        "score_dispersion": statistics.fmean(statistics.pstdev(s) for s in scores) if scores else NAN,
        "score_spread": float(max(max(s) - min(s) for s in scores)) if scores else NAN,
    }


def judge_turns(opinions: Sequence[dict[str, Any]], rounds: int) -> list[dict[str, Any]]:
    """One turn per judge and round it answered in; a judge none of whose opinions parsed gives a fallback
    turn (its neutral scores stand in the rulings' record but it is no voice)."""
    turns = []
    for r in range(1, rounds + 1):
        for judge in JUDGES:
            ops = [o for o in opinions if o["round"] == r and o["judge"] == judge]
            if not ops:
                continue
            fallback = not any(o["parsed"] for o in ops)
            text = FALLBACK_TEXT if fallback else " ".join(o["argument"] for o in ops if o["parsed"] and o["argument"])
            turns.append(
                {
                    "round": r,
                    "role": "participant",
                    "speaker": judge,
                    "text": text,
                    "fallback": fallback,
                    "claims": [] if fallback else sorted(claim_set(text)),
                    "opinions": [
                        {"criterion": o["criterion"], "score": o["score"], "cited": o["cited"], "parsed": o["parsed"]}
                        for o in ops
                    ],
                }
            )
    return turns


def _rule_counts(trace: Sequence[dict[str, Any]]) -> dict[str, int]:
    counts = {f"rules/{rule}": 0 for rule in PRIORITY}
    for t in trace:
        counts[f"rules/{t['rule']}"] += 1
    return counts


def _round_entry(
    r: int,
    opinions: Sequence[dict[str, Any]],
    turns: Sequence[dict[str, Any]],
    ruling: dict[str, Any] | None,
    trace: Sequence[dict[str, Any]],
    quorum: int,
) -> dict[str, Any]:
    voices = [t for t in turns if t["round"] == r and not t["fallback"]]
    return {
        "round": r,
        "voices": len(voices),
        "quorum": quorum,
        "jaccard_agreement": pairwise_jaccard([set(t["claims"]) for t in voices], quorum),
        **bench_measures([o for o in opinions if o["round"] == r], quorum),
        "contested_criteria": len(ruling["contested"]) if ruling else NAN,
        **_rule_counts([t for t in trace if t["round"] == r]),
    }


def rulings_artifact(state: dict[str, Any], params: TribunalParams) -> str:
    """``rulings.json``: the thresholds it was judged by, then per round the decision, contested criteria,
    verdicts and rules fired (with why)."""
    trace = state.get("applied_rules", [])
    rounds = [
        ruling | {"rules": [{k: t[k] for k in ("criterion", "rule", "why")} for t in trace if t["round"] == ruling["round"]]}
        for ruling in state.get("rulings", [])
    ]
    return json.dumps(
        {
            "dispersion_threshold": params.dispersion_threshold,
            "quorum": params.voices_needed,
            "max_reevaluations": params.max_reevaluations,
            "pass_score": params.pass_score,
            "rounds": rounds,
        },
        separators=(",", ":"),
    )


def termination(state: dict[str, Any]) -> TerminationReason:
    """``partial_report`` after an error; ``converged`` when the last ruling left no criterion contested;
    else ``max_rounds``: the re-evaluations ran out with the bench still split (or short of a quorum)."""
    if state.get("partial"):
        return TerminationReason.PARTIAL
    return TerminationReason.CONVERGED if state.get("converged") else TerminationReason.MAX_ROUNDS


def outcome(state: dict[str, Any], params: TribunalParams, scenario: dict[str, Any] | None = None) -> EpisodeOutcome:
    rounds = state.get("evaluation_round", 0)
    opinions = state.get("opinions", [])
    trace = state.get("applied_rules", [])
    rulings = {r["round"]: r for r in state.get("rulings", [])}
    quorum = params.voices_needed
    turns = judge_turns(opinions, rounds)
    per_round = [_round_entry(r, opinions, turns, rulings.get(r), trace, quorum) for r in range(1, rounds + 1)]
    last = per_round[-1] if per_round else {}
    measures = ("jaccard_agreement", "citation_jaccard", "score_dispersion", "score_spread", "contested_criteria")
    branches = state.get("branch_timings", [])
    return EpisodeOutcome(
        termination=termination(state),
        metrics={
            "rounds": rounds,
            "reevaluations": state.get("reevaluations", 0),
            **{key: last.get(key, NAN) for key in measures},
            "timeouts": sum(b["timed_out"] for b in branches),
            "branches": len(branches),
            "crashes": len(state.get("errors", [])),
            "unparsed_opinions": sum(not o["parsed"] for o in opinions),
            "criteria_passed": sum(v["passed"] for v in state.get("verdicts", [])),
            **{key: last.get(key, 0) for key in _rule_counts([])},
        },
        per_round=per_round,
        transcript=turns,
        artifacts={"report.md": state.get("report", ""), "rulings.json": rulings_artifact(state, params)},
        timings={"branches": branches, "layers": state.get("layer_timings", [])},
    )
