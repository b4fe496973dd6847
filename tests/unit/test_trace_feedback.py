"""An episode's evaluator scores become feedback on its trace beside its verdicts, each with its comment."""

from __future__ import annotations

from dialectica.sim.tracking.traces import verdicts


def test_each_defined_score_is_feedback_named_as_its_metric_with_the_evaluators_comment():
    record = {
        "graph": "shop",
        "converged": True,
        "termination_reason": "judge_passed",
        "metrics": {
            "judge_passed": 1.0,
            "score/trajectory_superset_match": 1.0,
            "score/called_lookup": None,  # undefined (no reference): no feedback
            "rubric/goal_completion": 0.0,
            "tools/recall": 0.5,  # the harness's own metric, not an evaluator's
        },
        "artifacts": {"judge": "refunded", "rubric/goal_completion": "the user left unhelped"},
        "usage": {},
    }
    feedback = {f.name: f for f in verdicts(record)}
    assert set(feedback) == {
        "dialectica/converged",
        "dialectica/ending",
        "dialectica/judge",
        "score/trajectory_superset_match",
        "rubric/goal_completion",
    }
    assert feedback["score/trajectory_superset_match"].value == 1.0
    assert feedback["score/trajectory_superset_match"].source.source_type == "CODE"
    rubric = feedback["rubric/goal_completion"]
    assert rubric.value == 0.0 and rubric.rationale == "the user left unhelped"
    assert rubric.source.source_type == "CODE" and rubric.source.source_id == "dialectica:shop:rubric/goal_completion"
