"""Tribunal: deadlines, error routing to a partial report, the re-evaluation cap, the rule engine's priorities."""

from __future__ import annotations

import time

import pytest

from dialectica.graphs.tribunal.bench import read_opinions
from dialectica.graphs.tribunal.build import build_tribunal, outcome, recursion_limit
from dialectica.graphs.tribunal.deadline import run_with_deadline
from dialectica.graphs.tribunal.nodes import COLLECTORS, TribunalDeps
from dialectica.graphs.tribunal.params import TribunalParams
from dialectica.graphs.tribunal.rules import judge_criterion, needs_reevaluation
from dialectica.sim.scripted import ScriptedChatModel
from dialectica.sim.spec import Episode
from dialectica.sim.termination import TerminationReason

CRITERIA = [
    {"id": "c1", "dimension": "security", "title": "Secrets", "description": "no secrets in git"},
    {"id": "c2", "dimension": "functionality", "title": "Tests", "description": "tests pass"},
]


def _evidence(eid, criterion, found=True, tags=()):
    return {"id": eid, "criterion": criterion, "goal": "g", "found": found, "content": f"content {eid}",
            "location": f"file.py:{eid[1:]}", "confidence": 0.9, "tags": list(tags)}


def _collector(items, delay=0.0, fail=None):
    def collect():
        time.sleep(delay)
        if fail:
            raise RuntimeError(fail)
        return [dict(i) for i in items]
    return collect


def _judge(scores):
    """A judge model that gives each criterion the score in ``scores``."""
    return ScriptedChatModel(
        policy=lambda m: "\n".join(f"Criterion {c}: score {v}. Cited: e1. Argument: because." for c, v in scores.items()))


REPO, DOC, PROBE = COLLECTORS  # the graph's fixed detective layer


def _run(collectors, judges, params=None):
    """``collectors`` by name (names from COLLECTORS); the other collectors find nothing."""
    params = params or TribunalParams()
    assert set(collectors) <= set(COLLECTORS)
    deps = TribunalDeps({name: collectors.get(name, _collector([])) for name in COLLECTORS}, judges)
    state = {"subject": "case", "criteria": CRITERIA, "reevaluations": 0, "evaluation_round": 0}
    return build_tribunal().invoke(state, {"recursion_limit": recursion_limit(params)}, context=Episode(deps, params))


def _bench(scores):
    return {name: _judge(scores) for name in ("prosecutor", "defense", "tech_lead")}


def test_deadline_returns_value_error_or_timeout():
    assert run_with_deadline(lambda: 7, 1.0)[:2] == ("ok", 7)
    status, value, _ = run_with_deadline(lambda: 1 / 0, 1.0)
    assert status == "error" and isinstance(value, ZeroDivisionError)
    start = time.perf_counter()
    status, value, elapsed = run_with_deadline(lambda: time.sleep(5), 0.1)
    assert (status, value) == ("timeout", None) and time.perf_counter() - start < 1.0


def test_timed_out_collector_yields_found_false_and_the_run_finishes_in_time():
    params = TribunalParams(layer_timeout_s=0.2)
    collectors = {REPO: _collector([_evidence("e1", "c1")]), DOC: _collector([], delay=30)}
    start = time.perf_counter()
    state = _run(collectors, _bench({"c1": 3, "c2": 3}), params)
    assert time.perf_counter() - start < params.layer_timeout_s + 2.0
    missing = [e for e in state["evidence"] if e["collector"] == DOC]
    assert len(missing) == 1 and missing[0]["found"] is False and "deadline" in missing[0]["content"]
    result = outcome(state, params)
    assert result.termination is TerminationReason.CONVERGED and result.metrics["timeouts"] == 1


def test_raised_error_routes_to_partial_report():
    judges = _bench({"c1": 3, "c2": 3})
    state = _run({REPO: _collector([_evidence("e1", "c1")]), DOC: _collector([], fail="disk on fire")}, judges)
    assert state["partial"] is True and "(PARTIAL)" in state["report"] and "disk on fire" in state["report"]
    assert "e1" in state["report"]  # whatever was collected is kept
    assert not state.get("opinions")  # the judicial layer never ran
    assert outcome(state, TribunalParams()).termination is TerminationReason.PARTIAL


@pytest.mark.parametrize("cap", [0, 1, 2])
def test_reevaluation_happens_at_most_the_configured_times(cap):
    params = TribunalParams(max_reevaluations=cap)
    judges = {"prosecutor": _judge({"c1": 1, "c2": 1}), "defense": _judge({"c1": 5, "c2": 5}),
              "tech_lead": _judge({"c1": 3, "c2": 3})}
    state = _run({REPO: _collector([_evidence("e1", "c1")])}, judges, params)
    assert state["reevaluations"] == cap and state["evaluation_round"] == cap + 1
    if cap:
        assert state["chief_feedback"].startswith("re-examine c1, c2")
    assert not state["partial"]


def test_agreeing_bench_is_not_sent_back():
    state = _run({REPO: _collector([_evidence("e1", "c1")])}, _bench({"c1": 3, "c2": 4}))
    assert state["reevaluations"] == 0 and state["evaluation_round"] == 1


def test_parallel_layer_wall_time_is_near_the_longest_branch():
    collectors = {name: _collector([_evidence(f"e{i}", "c1")], delay=0.3) for i, name in enumerate(COLLECTORS)}
    state = _run(collectors, _bench({"c1": 3, "c2": 3}))
    wall = next(t["wall_seconds"] for t in state["layer_timings"] if t["layer"] == "detective")
    total = sum(b["seconds"] for b in state["branch_timings"] if b["layer"] == "detective")
    assert total >= 0.85 and wall < 0.8 * total  # sequential would make wall >= total


# --- rule engine -----------------------------------------------------------------------------------

P = TribunalParams()


def _op(judge, score, cited=()):
    return {"judge": judge, "score": score, "cited": list(cited), "criterion": "c", "round": 1}


def test_security_beats_functionality_weighting():
    criterion = {"id": "c", "dimension": "functionality"}
    evidence = {"e1": _evidence("e1", "c", tags=["security_issue"])}
    verdict, trace = judge_criterion(criterion, [_op("prosecutor", 3), _op("defense", 5), _op("tech_lead", 5)], evidence, P)
    assert verdict["score"] == P.security_cap and not verdict["passed"]
    assert [t["rule"] for t in trace] == ["security_override", "functionality_weight"]
    assert "e1 (file.py:1)" in trace[0]["why"]


def test_fact_overrules_opinions_on_unsupported_evidence_before_weighting():
    criterion = {"id": "c", "dimension": "fact"}
    evidence = {"e1": _evidence("e1", "c", tags=["claim_unsupported"]), "e2": _evidence("e2", "c", found=False),
                "e3": _evidence("e3", "c", tags=["claim_supported"])}
    ops = [_op("prosecutor", 2, ["e1"]), _op("defense", 5, ["e1"]), _op("tech_lead", 4, ["e2"])]
    verdict, trace = judge_criterion(criterion, ops, evidence, P)
    assert verdict["score"] == 2.0  # only the prosecutor's opinion stands
    assert [t["rule"] for t in trace] == ["fact_supremacy", "fact_supremacy"]
    low = [_op("prosecutor", 2, ["e1"]), _op("defense", 3, ["e1"]), _op("tech_lead", 4, ["e3"])]
    assert judge_criterion(criterion, low, evidence, P)[0]["score"] == 3.0  # low scores on weak evidence stand


def test_functionality_weighting_and_plain_mean():
    ops = [_op("prosecutor", 2), _op("defense", 4), _op("tech_lead", 5)]
    assert judge_criterion({"id": "c", "dimension": "functionality"}, ops, {}, P)[0]["score"] == pytest.approx(4.0)
    assert judge_criterion({"id": "c", "dimension": "fact"}, ops, {}, P)[0]["score"] == pytest.approx(11 / 3, abs=1e-3)


def test_needs_reevaluation_respects_threshold_and_cap():
    verdicts = [{"criterion": "a", "spread": 3}, {"criterion": "b", "spread": 2}]
    assert needs_reevaluation(verdicts, 0, P) == ["a"]
    assert needs_reevaluation(verdicts, 1, P) == []


def test_unparsed_opinion_gets_a_neutral_score():
    ops = read_opinions("Criterion c1: score 5. Cited: e1, e2. Argument: strong.\nrambling", "defense", 1, CRITERIA)
    assert (ops[0]["score"], ops[0]["cited"], ops[0]["parsed"]) == (5, ["e1", "e2"], True)
    assert (ops[1]["score"], ops[1]["parsed"]) == (3, False)
