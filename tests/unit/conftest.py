"""Small hand-made episode records, one per graph, for the viewer's tests."""

from __future__ import annotations

import json

import pytest


def _record(
    graph: str,
    transcript: list[dict],
    per_round: list[dict],
    metrics: dict,
    artifacts: dict | None = None,
    reason: str = "max_rounds",
    **extra,
) -> dict:
    return {
        "graph": graph,
        "episode": 0,
        "seed": 1,
        "scenario": "tiny",
        "participants": "scripted",
        "termination_reason": reason,
        "metrics": metrics,
        "per_round": per_round,
        "transcript": transcript,
        "artifacts": artifacts or {},
        "labels": {},
        "timings": {"episode_seconds": 0.5, "node_seconds": {"ask": [0.1, 0.1], "answer": [0.2, 0.1], "close": [0.01]}},
        "usage": {"llm_calls": 4, "tokens_total": 100, "calls_by_node": {"ask": 2}, "tokens_by_node": {"ask": 100}},
        **extra,
    }


@pytest.fixture
def committee_record() -> dict:
    nodes = [
        {
            "id": "a:1:opening",
            "member": "a",
            "order": 0,
            "round": 1,
            "phase": "opening",
            "position": "support",
            "cited": ["d1"],
        },
        {"id": "b:1:opening", "member": "b", "order": 1, "round": 1, "phase": "opening", "position": "oppose", "cited": []},
        {
            "id": "b:1:rebuttal",
            "member": "b",
            "order": 2,
            "round": 1,
            "phase": "rebuttal",
            "position": "nuanced",
            "cited": ["d2"],
        },
    ]
    edges = [
        {"source": "b:1:rebuttal", "target": "a:1:opening", "relationship": "opposes"},
        {"source": "b:1:rebuttal", "target": "b:1:opening", "relationship": "supports"},
    ]
    changes = [{"member": "b", "round": 1, "phase": "rebuttal", "from": "oppose", "to": "nuanced", "why": "[d2] shows it"}]
    transcript = [
        {"round": 1, "role": "member", "speaker": "a", "phase": "opening", "text": "I support it."},
        {"round": 1, "role": "member", "speaker": "b", "phase": "opening", "text": "I oppose it."},
        {"round": 1, "role": "participant", "speaker": "a", "phase": "vote", "text": "support"},
    ]
    per_round = [
        {
            "round": 1,
            "consensus_reached": False,
            "consensus_score": 0.55,
            "vote_share": 0.5,
            "semantic_agreement": 0.6,
            "divergence": 0.5,
            "dissenters": 1,
            "rebuttals": True,
        }
    ]
    return _record(
        "committee",
        transcript,
        per_round,
        {"rounds": 1, "dissenters": 1, "consensus_score": 0.55},
        {
            "argument_graph.json": json.dumps({"nodes": nodes, "edges": edges}),
            "position_changes.json": json.dumps(changes),
            "recommendation.md": "## Committee Recommendation\nsupport",
        },
    )


TRIBUNAL_REPORT = """# Audit report

## Verdicts

| criterion | dimension | score | passed |
|---|---|---|---|
| c1 | security | 1.00 | no |

## Applied rules
- round 1, c1: security_override: a confirmed vulnerability caps the score at 1
- round 2, c2: fact_supremacy: the evidence outranks the defense
"""


@pytest.fixture
def tribunal_record() -> dict:
    transcript = [
        {"round": 1, "role": "participant", "speaker": j, "text": f"{j} argues"} for j in ("prosecutor", "defense")
    ]
    timings = {
        "branches": [
            {"branch": "doc", "layer": "detective", "seconds": 0.2, "timed_out": False},
            {"branch": "repo", "layer": "detective", "seconds": 0.5, "timed_out": True},
        ],
        "layers": [{"layer": "detective", "round": 0, "wall_seconds": 0.5}],
    }
    record = _record(
        "tribunal",
        transcript,
        [{"round": 1, "jaccard_agreement": 0.5, "score_dispersion": 0.3}],
        {"rounds": 2, "reevaluations": 1, "timeouts": 1, "rules/security_override": 1},
        {"report.md": TRIBUNAL_REPORT},
        reason="partial_report",
    )
    record["timings"] |= timings
    return record


@pytest.fixture
def interview_record() -> dict:
    transcript = [
        {"round": r, "role": role, "speaker": who, "text": f"{who} {r}"}
        for r in (1, 2)
        for role, who in (("system", "interviewer"), ("participant", "expert"))
    ]
    per_round = [
        {"round": 1, "field": "mode", "wasted": False, "required_filled": 1, "precision": 1.0, "recall": 0.5},
        {"round": 2, "field": "steps", "wasted": True, "required_filled": 1, "precision": 1.0, "recall": 0.5},
    ]
    return _record(
        "interview",
        transcript,
        per_round,
        {"rounds": 2, "depth": 1, "required_fields": 2, "budget_used": 2.0},
        {"ascr.json": json.dumps({"mode": "batch", "steps": ["mix"]})},
        reason="budget_exhausted",
    )


@pytest.fixture
def maieutic_record() -> dict:
    transcript = [
        {"round": r, "role": role, "speaker": who, "text": f"{who} {r}"}
        for r in (1, 2)
        for role, who in (("participant", "learner"), ("system", "sophia"))
    ]
    per_round = [
        {
            "round": 1,
            "move": "EXAMINE",
            "critic_loops": 0,
            "failed/too_long": 0,
            "failed/no_question": 0,
            "retrieved": True,
            "hits": 1,
            "best_similarity": 0.8,
            "hit_similarity_mean": 0.8,
            "frustration": 0.0,
        },
        {
            "round": 2,
            "move": "CHALLENGE",
            "critic_loops": 2,
            "failed/too_long": 2,
            "failed/no_question": 0,
            "retrieved": True,
            "hits": 0,
            "best_similarity": 0.6,
            "hit_similarity_mean": None,
            "frustration": 1.0,
            "cap_reached": False,
        },
    ]
    return _record(
        "maieutic",
        transcript,
        per_round,
        {"rounds": 2, "depth": 1},
        {"thesis_evolution.md": "1. friendship is fun\n2. friendship is goodwill"},
        reason="max_turns",
    )


PANEL_REPORT = """# Socratic panel report

## 1. Executive summary
Did not converge after 2 rounds (Not converged: Depth: 1/5, Evidence: 0.20/0.85). Depth 1.

## 2. Assumptions analysis
**Validated** (1)
- footfall doubles on sundays
**Unproven** (2)
- staff accept weekend shifts
- families shop together

## 3. Blind spots discovered
- No evidence for staff
"""


@pytest.fixture
def panel_record() -> dict:
    transcript = [
        {"round": 1, "role": "moderator", "speaker": "moderator", "type": "clarification", "text": "What do you mean?"},
        {"round": 1, "role": "participant", "speaker": "owner", "text": "Sundays pay.", "claims": [], "fallback": False},
    ]
    per_round = [
        {
            "round": 1,
            "depth": 1,
            "jaccard_agreement": 0.4,
            "evidence_completeness": 0.2,
            "converged": False,
            "unmet": "depth,evidence",
        },
        {
            "round": 2,
            "depth": 1,
            "jaccard_agreement": 0.9,
            "evidence_completeness": 0.2,
            "converged": False,
            "unmet": "evidence",
        },
    ]
    return _record("socratic_panel", transcript, per_round, {"rounds": 2, "depth": 1}, {"report.md": PANEL_REPORT})
