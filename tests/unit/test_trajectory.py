"""Trajectory and tool-call metrics: by hand, and against agentevals' own matchers on the same calls."""

from __future__ import annotations

import json
import math
import random

import pytest

from dialectica.metrics.trajectory import MODES, calls_match, expected_call, path_match, tool_scores

LOOKUP = {"name": "lookup", "args": {"order": "A1"}}
REFUND = {"name": "refund", "args": {"order": "A1", "amount": 5}}


def test_each_mode_by_hand():
    made = [LOOKUP, REFUND]
    assert calls_match(made, [expected_call("lookup"), expected_call("refund")], "strict")
    assert not calls_match(made, [expected_call("refund"), expected_call("lookup")], "strict")  # order counts
    assert calls_match(made, [expected_call("refund"), expected_call("lookup")], "unordered")
    assert calls_match(made, [expected_call("refund")], "superset") and not calls_match(made, [REFUND], "subset")
    assert calls_match([LOOKUP], [LOOKUP, REFUND], "subset") and not calls_match([LOOKUP], [LOOKUP, REFUND], "superset")
    wrong_amount = {"name": "refund", "args": {"amount": 50}}
    assert not calls_match(made, [LOOKUP, wrong_amount], "strict")  # an argument that is given must be equal
    assert calls_match([LOOKUP, LOOKUP], [expected_call("lookup")], "superset")
    assert not calls_match([LOOKUP], [expected_call("lookup")] * 2, "superset")  # a call counts once
    assert path_match(["agent", "tools", "agent"], ["agent", "tools"], "superset")
    assert not path_match(["agent", "tools", "agent"], ["agent", "tools"], "strict")
    with pytest.raises(ValueError, match="valid choices: strict, unordered, subset, superset"):
        calls_match(made, [], "loose")


def test_precision_recall_and_arguments_by_hand():
    made = [LOOKUP, LOOKUP, {"name": "refund", "args": {"order": "A1", "amount": 50}}]
    scores = tool_scores(made, [expected_call("lookup"), REFUND, expected_call("escalate")])
    assert scores["precision"] == pytest.approx(2 / 3)  # lookup once and refund were expected; the second lookup not
    assert scores["recall"] == pytest.approx(2 / 3)  # escalate never came
    assert scores["argument_match"] == 0.0  # the one expected call with arguments: refund of 5, but 50 was refunded
    nothing = tool_scores([], [])
    assert math.isnan(nothing["precision"]) and math.isnan(nothing["recall"]) and math.isnan(nothing["argument_match"])


def _openai(calls: list[dict]) -> list[dict]:
    """Calls as agentevals reads a trajectory: one assistant message per call."""
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": c["name"], "arguments": json.dumps(c.get("args") or {})}}],
        }
        for c in calls
    ]


CASES = [(mode, "ignore") for mode in MODES] + [("strict", "superset"), ("superset", "superset")]


@pytest.mark.parametrize(("mode", "arguments"), CASES)
def test_every_mode_agrees_with_agentevals(mode, arguments):
    """By name in every mode; with arguments where agentevals reads them as we do (an expected call's arguments, where
    given, equal in the call made). In ``subset`` agentevals turns that round (the call made's arguments must be in
    the expected call's), so an expected call without arguments would match no call with some."""
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    theirs = create_trajectory_match_evaluator(trajectory_match_mode=mode, tool_args_match_mode=arguments)
    rng = random.Random(7)
    tools = ["lookup", "refund", "escalate"]
    outcomes = set()
    for _ in range(300):
        made = [{"name": rng.choice(tools), "args": {"order": rng.choice("AB")}} for _ in range(rng.randint(0, 3))]
        expected = [
            {"name": rng.choice(tools), "args": {} if arguments == "ignore" else rng.choice([{}, {"order": "A"}])}
            for _ in range(rng.randint(0, 3))
        ]
        ours = calls_match(made, expected, mode)
        assert ours == bool(theirs(outputs=_openai(made), reference_outputs=_openai(expected))["score"]), (made, expected)
        outcomes.add(ours)
    assert outcomes == {True, False}  # both answers were exercised
