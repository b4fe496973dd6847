"""Every headline metric of a real tribunal run, recomputed from its episodes.jsonl alone.

The recomputation is written afresh here (itertools, statistics), from the judges' turns (their opinions
with citations, claims and fallback marks), ``rulings.json`` (the Chief Justice's decisions, verdicts and
rule firings per round, with the thresholds they were judged by), the report's error list and the branch
timings, so a metric that drifts from its definition, or a record that lacks what it needs, fails. The
run has seeded collector crashes and a deadline the planted hang crosses, so every ending shows up.
"""

from __future__ import annotations

import json
import math
import statistics
from itertools import combinations

import pytest

from dialectica.metrics.text import claim_set

RULES = ("security_override", "fact_supremacy", "functionality_weight")


@pytest.fixture(scope="module")
def run(tmp_path_factory, recorded_run):
    # A planted hang (60 s) always crosses the 1 s deadline and an ordinary collector (milliseconds) never does,
    # however loaded the machine: which branches time out is the scenario's, not the clock's.
    return recorded_run(
        tmp_path_factory.mktemp("tribunal"),
        "tribunal",
        "episodes=12",
        "seed=3",
        "embeddings=false",
        "participants.crash_rate=0.1",
        "graph.layer_timeout_s=1.0",
        "graph.cast.hang_s=60",
        "graph.max_reevaluations=2",
    )


def _jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _mean(values: list) -> float:
    values = [v for v in values if v is not None and not math.isnan(v)]
    return statistics.fmean(values) if values else math.nan


def _turns(record: dict, round_num: int) -> list[dict]:
    return [t for t in record["transcript"] if t["round"] == round_num and t["role"] == "participant"]


def _bench(record: dict, round_num: int, quorum: int, threshold: float) -> dict:
    """The round's measures from its opinions: parsed opinions by criterion, those with a quorum measured."""
    opinions = [o for t in _turns(record, round_num) for o in t["opinions"]]
    criteria = list(dict.fromkeys(o["criterion"] for o in opinions))
    parsed = {c: [o for o in opinions if o["criterion"] == c and o["parsed"]] for c in criteria}
    quorate = [ops for ops in parsed.values() if len(ops) >= quorum]
    pairs = [_jaccard(set(a["cited"]), set(b["cited"])) for ops in quorate for a, b in combinations(ops, 2)]
    spreads = [max(o["score"] for o in ops) - min(o["score"] for o in ops) for ops in quorate]
    voices = [set(t["claims"]) for t in _turns(record, round_num) if not t["fallback"]]
    return {
        "voices": len(voices),
        "jaccard_agreement": (
            statistics.fmean(_jaccard(a, b) for a, b in combinations(voices, 2))
            if len(voices) >= max(2, quorum)
            else math.nan
        ),
        "citation_jaccard": statistics.fmean(pairs) if pairs else math.nan,
        "score_dispersion": (
            statistics.fmean(statistics.pstdev([o["score"] for o in ops]) for ops in quorate) if quorate else math.nan
        ),
        "score_spread": float(max(spreads)) if spreads else math.nan,
        "contested": [
            c
            for c, ops in parsed.items()
            if len(ops) < quorum or max(o["score"] for o in ops) - min(o["score"] for o in ops) > threshold
        ],
    }


def _errors(report: str) -> list[str]:
    section = report.split("## Errors", 1)[1].split("\n## ", 1)[0] if "## Errors" in report else ""
    return [line for line in section.splitlines() if line.startswith("- ")]


def _recompute(record: dict) -> dict:
    rulings = json.loads(record["artifacts"]["rulings.json"])
    quorum, threshold = rulings["quorum"], rulings["dispersion_threshold"]
    rounds = max((t["round"] for t in record["transcript"]), default=0)
    bench = _bench(record, rounds, quorum, threshold) if rounds else {}
    last = rulings["rounds"][-1] if rulings["rounds"] else {"rules": [], "verdicts": []}
    opinions = [o for t in record["transcript"] for o in t["opinions"]]
    branches = record["timings"]["branches"]
    return {
        "rounds": rounds,
        "reevaluations": sum(r["decision"] == "reevaluate" for r in rulings["rounds"]),
        **{k: bench.get(k, math.nan) for k in ("jaccard_agreement", "citation_jaccard", "score_dispersion", "score_spread")},
        "contested_criteria": len(bench["contested"]) if rounds and rulings["rounds"] else math.nan,
        "timeouts": sum(b["timed_out"] for b in branches),
        "branches": len(branches),
        "crashes": len(_errors(record["artifacts"]["report.md"])),
        "unparsed_opinions": sum(not o["parsed"] for o in opinions),
        "criteria_passed": sum(v["passed"] for v in last["verdicts"]),
        **{f"rules/{rule}": sum(t["rule"] == rule for t in last["rules"]) for rule in RULES},
    }


def _ending(record: dict) -> str:
    """How the episode must have ended, from the report and the rulings alone."""
    if "(PARTIAL)" in record["artifacts"]["report.md"]:
        return "partial_report"
    rulings = json.loads(record["artifacts"]["rulings.json"])
    rounds = max(t["round"] for t in record["transcript"])
    return (
        "max_rounds"
        if _bench(record, rounds, rulings["quorum"], rulings["dispersion_threshold"])["contested"]
        else "converged"
    )


def test_the_run_shows_every_ending(run):
    records, _ = run
    assert {r["termination_reason"] for r in records} == {"converged", "max_rounds", "partial_report"}
    assert any(b["timed_out"] for r in records for b in r["timings"]["branches"])


def test_episode_metrics_recompute_from_the_record(run, recomputed):
    records, _ = run
    for record in records:
        recomputed(record, _recompute(record))


def test_judges_turns_carry_their_claims_and_fallback_marks(run):
    records, _ = run
    for record in records:
        for turn in record["transcript"]:
            assert turn["fallback"] == (not any(o["parsed"] for o in turn["opinions"]))
            assert turn["claims"] == ([] if turn["fallback"] else sorted(claim_set(turn["text"])))


def test_per_round_entries_recompute(run):
    records, _ = run
    for record in records:
        rulings = json.loads(record["artifacts"]["rulings.json"])
        by_round = {r["round"]: r for r in rulings["rounds"]}
        for entry in record["per_round"]:
            want = _bench(record, entry["round"], rulings["quorum"], rulings["dispersion_threshold"])
            assert entry["quorum"] == rulings["quorum"] and entry["voices"] == want["voices"]
            for key in ("jaccard_agreement", "citation_jaccard", "score_dispersion", "score_spread"):
                if math.isnan(want[key]):
                    assert entry[key] is None, (record["episode"], entry["round"], key)
                else:
                    assert entry[key] == pytest.approx(want[key]), (record["episode"], entry["round"], key)
            ruling = by_round[entry["round"]]
            assert ruling["contested"] == want["contested"] and entry["contested_criteria"] == len(want["contested"])
            for rule in RULES:
                assert entry[f"rules/{rule}"] == sum(t["rule"] == rule for t in ruling["rules"])


def test_endings_follow_from_the_rulings(run):
    records, _ = run
    for record in records:
        assert record["termination_reason"] == _ending(record), record["episode"]
        rulings = json.loads(record["artifacts"]["rulings.json"])
        decisions = [r["decision"] for r in rulings["rounds"]]
        if record["termination_reason"] != "partial_report":
            assert decisions[-1] == "report" and set(decisions[:-1]) <= {"reevaluate"}
            # the bench is sent back while a criterion is contested and re-evaluations remain
            sent_back = decisions.count("reevaluate")
            assert all(r["contested"] for r in rulings["rounds"][:-1])
            if record["termination_reason"] == "max_rounds":
                assert sent_back == rulings["max_reevaluations"]
        for ruling in rulings["rounds"]:
            for verdict in ruling["verdicts"]:
                assert verdict["passed"] == (verdict["score"] is not None and verdict["score"] >= rulings["pass_score"])


def test_headline_rates_and_means(run):
    records, summary = run
    n = len(records)
    reasons = [r["termination_reason"] for r in records]
    assert summary["convergence_rate"] == pytest.approx(reasons.count("converged") / n)
    assert summary["partial_report_rate"] == pytest.approx(reasons.count("partial_report") / n)
    for reason in ("converged", "max_rounds", "partial_report"):
        assert summary[f"termination/{reason}"] == pytest.approx(reasons.count(reason) / n)
    for name in {r["scenario"] for r in records}:
        mine = [r for r in records if r["scenario"] == name]
        assert summary[f"scenario/{name}/convergence_rate"] == pytest.approx(
            sum(r["termination_reason"] == "converged" for r in mine) / len(mine)
        )
    recomputed = [_recompute(r) for r in records]
    for key in recomputed[0]:
        assert summary[f"{key}_mean"] == pytest.approx(_mean([m[key] for m in recomputed])), key
    undefined = [math.isnan(m["jaccard_agreement"]) for m in recomputed]
    assert summary["jaccard_agreement_undefined_rate"] == pytest.approx(sum(undefined) / n)
    branches = [b for r in records for b in r["timings"]["branches"]]
    assert summary["timeout_rate"] == pytest.approx(statistics.fmean(b["timed_out"] for b in branches))


def test_layer_timings_recompute(run):
    records, summary = run
    runs: dict[str, list[tuple[float, float]]] = {}
    for record in records:
        branches = record["timings"]["branches"]
        for layer in record["timings"]["layers"]:
            mine = [
                b["seconds"]
                for b in branches
                if b["layer"] == layer["layer"] and (layer["layer"] == "detective" or b["round"] == layer["round"])
            ]
            runs.setdefault(layer["layer"], []).append((layer["wall_seconds"], sum(mine)))
    assert set(runs) == {"detective", "judicial"}
    for layer, pairs in runs.items():
        assert summary[f"layer_seconds_p50/{layer}"] == pytest.approx(statistics.median(w for w, _ in pairs))
        assert summary[f"branch_seconds_sum_p50/{layer}"] == pytest.approx(statistics.median(t for _, t in pairs))
        assert summary[f"parallel_speedup_mean/{layer}"] == pytest.approx(statistics.fmean(t / w for w, t in pairs))
