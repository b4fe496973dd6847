"""Interview loop: the ASCR reducer (the seed's worked example), completion by criteria and by budget,
a corrupted answer that does not crash the loop, precision and recall against a hidden truth."""

from __future__ import annotations

import itertools
import math

import pytest

from dialectica.graphs.interview.ascr import merge_ascr, precision_recall
from dialectica.graphs.interview.build import build_interview, initial_state, outcome, recursion_limit
from dialectica.graphs.interview.interpret import interpret
from dialectica.graphs.interview.nodes import InterviewDeps
from dialectica.graphs.interview.params import InterviewParams
from dialectica.graphs.interview.schema import DiscoverySchema
from dialectica.sim.authoring.scripted import ScriptedChatModel
from dialectica.sim.authoring.spec import Episode
from dialectica.sim.authoring.termination import TerminationReason

SCHEMA = {
    "id": "warm_up",
    "title": "Warm-up",
    "fields": [
        {
            "name": "product_or_service_name",
            "kind": "text",
            "required": True,
            "asks": ["products"],
            "question": "What products do you make?",
        },
        {
            "name": "scheduling_challenges",
            "kind": "list",
            "required": True,
            "min_items": 2,
            "asks": ["challenges"],
            "question": "What challenges make scheduling hard?",
            "vocabulary": {
                "bottleneck-processes": ["bottleneck"],
                "equipment-utilization": ["idle tanks"],
                "product-variation": ["many recipes"],
            },
        },
        {
            "name": "motivation",
            "kind": "choice",
            "required": False,
            "asks": ["stock"],
            "question": "Make to stock or to order?",
            "vocabulary": {"make-to-stock": ["ahead of demand"], "make-to-order": ["once ordered"]},
        },
        {
            "name": "machines",
            "kind": "map",
            "required": False,
            "asks": ["machines"],
            "question": "Which machines?",
            "vocabulary": {"fermenter": ["fermenters"], "kettle": ["kettles"]},
        },
    ],
}
TRUTH = {
    "product_or_service_name": "craft beers",
    "scheduling_challenges": ["bottleneck-processes", "equipment-utilization"],
    "motivation": "make-to-stock",
    "machines": {"fermenter": 6, "kettle": 2},
}
SCENARIO = {"name": "test", "schema": SCHEMA, "persona": {"id": "brewer", "truth": {"warm_up": TRUTH}}}


def test_reducer_on_the_seeds_worked_example():
    first = merge_ascr({}, {"scheduling_challenges": ["bottleneck-processes"]})
    assert first == {"scheduling_challenges": ["bottleneck-processes"]}
    second = merge_ascr(
        first, {"scheduling_challenges": ["bottleneck-processes", "equipment-utilization"], "motivation": "make-to-stock"}
    )
    assert second == {
        "scheduling_challenges": ["bottleneck-processes", "equipment-utilization"],
        "motivation": "make-to-stock",
    }
    assert first == {"scheduling_challenges": ["bottleneck-processes"]}  # inputs untouched


def test_reducer_scalars_last_write_and_nested_maps_merge():
    merged = merge_ascr(
        {"motivation": "make-to-stock", "machines": {"fermenter": 6, "kettle": {"a": 1}}},
        {"motivation": "make-to-order", "machines": {"kettle": {"b": 2}, "mill": 1}},
    )
    assert merged == {"motivation": "make-to-order", "machines": {"fermenter": 6, "kettle": {"a": 1, "b": 2}, "mill": 1}}
    assert merge_ascr(None, None) == {}


def test_interpret_reads_only_what_it_can():
    schema = DiscoverySchema.from_dict(SCHEMA)
    assert interpret("A bottleneck and idle tanks.", schema, "scheduling_challenges") == {
        "scheduling_challenges": ["bottleneck-processes", "equipment-utilization"]
    }
    machines = interpret("We have 6 fermenters and 2 kettles.", schema, "machines")
    assert machines == {"machines": {"fermenter": 6, "kettle": 2}}
    name = interpret("Mostly craft beers.", schema, "product_or_service_name")
    assert name == {"product_or_service_name": "Mostly craft beers"}
    assert interpret("Our taproom got a new sign.", schema, "scheduling_challenges") == {}
    assert interpret("Hard to say, it varies a lot.", schema, "product_or_service_name") == {}
    for garbage in (None, "", "   ", "\x00\x01\x02 ?!", b"\xff\xfe", 42, {"json": "object"}):
        assert interpret(garbage, schema, "product_or_service_name") == {}


def _run(answers, budget=10.0):
    answers = iter(answers)
    deps = InterviewDeps(
        interviewer=ScriptedChatModel(policy=lambda m: "Tell me."),
        expert=ScriptedChatModel(policy=lambda m: next(answers)),
        schema=DiscoverySchema.from_dict(SCHEMA),
    )
    params = InterviewParams(budget=budget)
    final = build_interview().invoke(
        initial_state(SCENARIO, params), {"recursion_limit": recursion_limit(params)}, context=Episode(deps, params)
    )
    return final, outcome(final, params, SCENARIO)


def test_completion_by_criteria():
    final, result = _run(["Mostly craft beers.", "A bottleneck.", "Idle tanks, also."])
    assert final["complete"] and final["end_reason"] == "criteria"
    assert result.termination is TerminationReason.CONVERGED
    assert final["budget_used"] == 3.0 and result.metrics["rounds"] == 3 and result.metrics["budget_used"] == 3.0
    assert result.metrics["depth"] == 2 == result.metrics["required_fields"]
    assert len(final["messages"]) == 6


def test_completion_by_budget_and_wasted_turns():
    final, result = _run(["Hard to say.", "The weather is nice.", "Mostly craft beers."], budget=3.0)
    assert final["complete"] and final["end_reason"] == "budget" and final["budget_used"] == 3.0
    assert result.termination is TerminationReason.BUDGET
    assert result.metrics["wasted_turns"] == 2  # an evasive answer and small talk carry nothing
    assert final["ascr"] == {"product_or_service_name": "Mostly craft beers"} and result.metrics["depth"] == 1
    assert [t["field"] for t in result.per_round] == [
        "product_or_service_name",
        "scheduling_challenges",
        "product_or_service_name",
    ]  # the least-asked missing field next


def test_both_speakers_remember_the_interview_and_their_prompts_only_grow():
    """Each speaker's prompt extends its last one (the prefix cache serves it): the expert's with the question and its
    own answer, the interviewer's with what it asked, then the answer and this turn's prompt."""
    answers = iter(["Hard to say.", "Mostly craft beers.", "A bottleneck."])
    asked: list[list] = []
    heard: list[list] = []

    def interviewer(messages):
        asked.append([(m.type, m.content) for m in messages])
        return f"Question {len(asked)}?"

    def expert(messages):
        heard.append([(m.type, m.content) for m in messages])
        return next(answers)

    deps = InterviewDeps(
        interviewer=ScriptedChatModel(policy=interviewer),
        expert=ScriptedChatModel(policy=expert),
        schema=DiscoverySchema.from_dict(SCHEMA),
    )
    params = InterviewParams(budget=3.0)
    build_interview().invoke(
        initial_state(SCENARIO, params), {"recursion_limit": recursion_limit(params)}, context=Episode(deps, params)
    )
    assert len(heard) == len(asked) == 3
    for before, after in itertools.pairwise(heard):
        assert after[: len(before)] == before and len(after) == len(before) + 2
    assert heard[-1][1:] == [
        ("human", "Interviewer: Question 1?\nYour answer:"),
        ("ai", "Hard to say."),
        ("human", "Interviewer: Question 2?\nYour answer:"),
        ("ai", "Mostly craft beers."),
        ("human", "Interviewer: Question 3?\nYour answer:"),
    ]
    for before, after in itertools.pairwise(asked):
        assert after[: len(before)] == before and after[len(before)] == ("ai", f"Question {len(before) // 2}?")
    last = asked[-1][-1][1]
    assert last.startswith("The expert answered: Mostly craft beers.\nDiscovery schema:")
    assert "Times asked before: " in last and not asked[0][-1][1].startswith("The expert answered")


class _Corrupt(ScriptedChatModel):
    """An expert whose first reply is not text at all and whose second call and its retry raise."""

    def invoke(self, *args, **kwargs):
        self.role = self.role + "+"
        if self.role == "scripted+":
            return type("Reply", (), {"content": [{"type": "image", "bytes": "\x89PNG"}]})()
        if self.role in ("scripted++", "scripted+++"):
            raise ConnectionError("expert hung up")
        return super().invoke(*args, **kwargs)


def test_corrupted_answer_and_failed_call_do_not_crash_the_loop():
    deps = InterviewDeps(
        interviewer=ScriptedChatModel(policy=lambda m: "Tell me."),
        expert=_Corrupt(policy=lambda m: "Mostly craft beers. A bottleneck and idle tanks."),
        schema=DiscoverySchema.from_dict(SCHEMA),
    )
    params = InterviewParams()
    final = build_interview().invoke(
        initial_state(SCENARIO, params), {"recursion_limit": recursion_limit(params)}, context=Episode(deps, params)
    )
    result = outcome(final, params, SCENARIO)
    assert result.metrics["wasted_turns"] == 2 and final["errors"][0]["error"] == "ConnectionError: expert hung up"
    assert result.termination is TerminationReason.CONVERGED


def test_precision_recall_against_truth():
    kinds = DiscoverySchema.from_dict(SCHEMA).kinds
    ascr = {
        "product_or_service_name": "anything",
        "scheduling_challenges": ["bottleneck-processes", "product-variation"],
        "motivation": "make-to-stock",
    }
    precision, recall = precision_recall(ascr, TRUTH, kinds)
    assert precision == pytest.approx(2 / 3) and recall == pytest.approx(2 / 5)  # text fields are not scored
    assert math.isnan(precision_recall({}, TRUTH, kinds)[0])
    assert precision_recall(TRUTH, TRUTH, kinds) == (1.0, 1.0)
