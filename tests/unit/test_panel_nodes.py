"""The Socratic panel's nodes and compiled graph with fake chat models (no model loads, no sleeping)."""

from __future__ import annotations

import copy
import itertools

import pytest

from dialectica.graphs.socratic_panel.build import build_socratic_panel, initial_state, recursion_limit
from dialectica.graphs.socratic_panel.nodes import Expert, PanelDeps, PanelNodes
from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.sim.authoring.cast import CastRequest, build_deps
from dialectica.sim.authoring.faults import FaultRates
from dialectica.sim.authoring.scripted import ScriptedChatModel
from dialectica.sim.authoring.spec import Episode
from dialectica.sim.config.discovery import load

QUESTION = "What exactly do you mean by your position?"
ANSWERS = {
    "ada": "I am convinced that trams will cut commuting times across the city.",
    "ben": "My view is that buses remain cheaper for the council budget overall.",
    "cy": "I suspect that cycling lanes attract younger residents downtown.",
}
NAMES = {"ada": "Ada Lovelace", "ben": "Ben Franklin", "cy": "Cy Young"}


class Recorder:
    """A policy that records the messages it gets and answers, failing on the calls listed in ``fail_on``."""

    def __init__(self, answer: str, fail_on=lambda call: False) -> None:
        self.answer, self.fail_on, self.calls = answer, fail_on, []

    def __call__(self, messages) -> str:
        self.calls.append(messages)
        if self.fail_on(len(self.calls)):
            raise TimeoutError(f"boom on call {len(self.calls)}")
        return self.answer


def _deps(policies: dict[str, Recorder], sleeps: list[float] | None = None) -> PanelDeps:
    sleeps = [] if sleeps is None else sleeps
    return PanelDeps(
        moderator=ScriptedChatModel(policy=lambda messages: QUESTION),
        experts={eid: ScriptedChatModel(policy=p) for eid, p in policies.items()},
        roster=[Expert(eid, NAMES[eid], "analyst") for eid in policies],
        sleep=sleeps.append,
    )


def _state(expert_ids) -> dict:
    scenario = {"query": "Should the city build trams?", "experts": [{"id": e, "name": NAMES[e]} for e in expert_ids]}
    return initial_state(scenario, PanelParams())


def _asked_state(expert_ids) -> dict:
    question = {
        "round": 1,
        "type": "clarification",
        "text": QUESTION,
        "moderator_id": "moderator",
        "target_assumption": None,
        "depth_level": 1,
    }
    return _state(expert_ids) | {"current_round": 1, "question_history": [question], "response_history": []}


def _run(deps: PanelDeps, params: PanelParams) -> dict:
    graph = build_socratic_panel()
    return graph.invoke(
        _state([r.id for r in deps.roster]), {"recursion_limit": recursion_limit(params)}, context=Episode(deps, params)
    )


def test_retry_then_answer_backs_off_exponentially():
    sleeps: list[float] = []
    flaky = Recorder(ANSWERS["ada"], fail_on=lambda call: call <= 2)
    params = PanelParams(retry_backoff_s=0.25)
    update = PanelNodes(_deps({"ada": flaky, "ben": Recorder(ANSWERS["ben"])}, sleeps), params).collect_responses(
        _asked_state(["ada", "ben"])
    )
    ada, ben = update["response_history"]
    assert (ada["attempts"], ada["fallback"], ada["response_text"]) == (3, False, ANSWERS["ada"])
    assert (ben["attempts"], ben["fallback"]) == (1, False)
    assert update["retry_count"] == 2 and update["errors"] == []
    assert sleeps == [0.25, 0.5]


def test_expert_that_always_fails_gets_the_fallback_and_no_sleep_after_the_last_try():
    sleeps: list[float] = []
    dead = Recorder("never", fail_on=lambda call: True)
    params = PanelParams(expert_retries=4, retry_backoff_s=1.5)
    update = PanelNodes(_deps({"ada": dead, "ben": Recorder(ANSWERS["ben"])}, sleeps), params).collect_responses(
        _asked_state(["ada", "ben"])
    )
    ada = update["response_history"][0]
    assert ada["response_text"] == "[Expert Ada Lovelace was unable to respond due to technical issues]"
    assert (ada["attempts"], ada["fallback"], ada["claims"]) == (4, True, [])
    assert len(dead.calls) == 4 and sleeps == [1.5, 3.0, 6.0]
    (error,) = update["errors"]
    assert error["expert_id"] == "ada" and error["node"] == "collect_responses" and "TimeoutError" in error["error"]


def test_graph_completes_with_a_report_when_an_expert_always_fails():
    deps = _deps(
        {"ada": Recorder("x", fail_on=lambda call: True), "ben": Recorder(ANSWERS["ben"]), "cy": Recorder(ANSWERS["cy"])}
    )
    final = _run(deps, PanelParams(max_rounds=2, min_rounds=1, retry_backoff_s=0.0))
    assert final["status"] == "max_rounds_reached"
    assert final["final_report"].startswith("# Socratic panel report")
    assert len(final["errors"]) == 2 and {e["expert_id"] for e in final["errors"]} == {"ada"}
    assert sum(r["fallback"] for r in final["response_history"]) == 2
    assert final["retry_count"] == 2 * (PanelParams().expert_retries - 1)


def test_each_expert_sees_the_earlier_answers_of_the_same_round():
    policies = {eid: Recorder(ANSWERS[eid]) for eid in ("ada", "ben", "cy")}
    PanelNodes(_deps(policies), PanelParams()).collect_responses(_asked_state(list(policies)))
    prompts = {eid: policy.calls[0][-1].content for eid, policy in policies.items()}
    assert f"[{NAMES['ada']}] {ANSWERS['ada']}" not in prompts["ada"]
    assert f"[{NAMES['ada']}] {ANSWERS['ada']}" in prompts["ben"]
    assert f"[{NAMES['ben']}] {ANSWERS['ben']}" not in prompts["ben"]
    for eid in ("ada", "ben"):
        assert f"[{NAMES[eid]}] {ANSWERS[eid]}" in prompts["cy"]
    assert all(QUESTION in p for p in prompts.values())


def test_second_round_prompt_shows_the_other_experts_previous_answers():
    policies = {eid: Recorder(ANSWERS[eid]) for eid in ("ada", "ben")}
    _run(_deps(policies), PanelParams(max_rounds=2, min_rounds=1))
    second = policies["ada"].calls[1][-1].content
    assert "Answers in the previous round:" in second
    assert f"[{NAMES['ben']}] {ANSWERS['ben']}" in second
    assert f"[{NAMES['ada']}]" not in second


def test_disagreeing_experts_stop_at_max_rounds():
    policies = {eid: Recorder(ANSWERS[eid]) for eid in ("ada", "ben")}
    # Only agreement can block: no depth or evidence is required and one round is enough.
    params = PanelParams(max_rounds=2, min_rounds=1, depth_requirement=0, evidence_completeness=0.0)
    final = _run(_deps(policies), params)
    assert final["status"] == "max_rounds_reached" and final["convergence_achieved"] is False
    assert final["current_round"] == 2 and [e["round"] for e in final["round_log"]] == [1, 2]
    assert final["agreement_level"] == 0.0 and final["unmet_criteria"] == ["agreement"]


def test_agreeing_experts_converge_after_the_first_round():
    same = "I am convinced that trams will cut commuting times across the city."
    other = "My view is that trams will cut commuting times across the city."
    params = PanelParams(max_rounds=2, min_rounds=1, depth_requirement=0, evidence_completeness=0.0)
    final = _run(_deps({"ada": Recorder(same), "ben": Recorder(other)}), params)
    assert final["status"] == "converged" and final["current_round"] == 1 and final["agreement_level"] == 1.0


def test_histories_accumulate_across_rounds():
    policies = {eid: Recorder(ANSWERS[eid], fail_on=lambda call: call % 2 == 1) for eid in ("ada", "ben", "cy")}
    final = _run(_deps(policies), PanelParams(max_rounds=3, min_rounds=1, retry_backoff_s=0.0))
    assert final["current_round"] == 3
    assert [q["round"] for q in final["question_history"]] == [1, 2, 3]
    assert [r["round"] for r in final["response_history"]] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert [r["expert_id"] for r in final["response_history"][:3]] == ["ada", "ben", "cy"]
    assert len(final["round_log"]) == 3
    assert final["retry_count"] == 9 and final.get("errors", []) == []


NODE_NAMES = (
    "formulate_question",
    "collect_responses",
    "analyze_responses",
    "test_assumptions",
    "check_convergence",
    "extract_insights",
    "generate_report",
)


@pytest.mark.parametrize("seed", [0, 1])
def test_nodes_never_mutate_their_input_state(tiny_scenario, seed):
    params = PanelParams(max_rounds=4)
    request = CastRequest(tiny_scenario, seed, FaultRates(participant=0.3), sleep=lambda s: None)
    deps = build_deps(load("socratic_panel"), "scripted", request)
    graph = build_socratic_panel()
    states = list(
        graph.stream(
            initial_state(tiny_scenario, params),
            {"recursion_limit": recursion_limit(params)},
            context=Episode(deps, params, seed),
            stream_mode="values",
        )
    )
    assert any(s.get("assumptions_identified") and s.get("evidence_map") for s in states)
    nodes = PanelNodes(deps, params)
    checked = 0
    for state in states:
        if not state.get("question_history"):
            continue
        for name in NODE_NAMES:
            before = copy.deepcopy(state)
            getattr(nodes, name)(state)
            assert state == before, name
            checked += 1
    assert checked >= 5 * len(NODE_NAMES)


def test_evidence_cited_by_two_experts_is_stored_once_in_either_order_of_rounds():
    sentence = (
        "An independent randomised controlled trial of 2,000 riders by Smith et al. in 2021 found that "
        "trams were punctual, which bears on the assumption that riders value reliability."
    )
    nodes = PanelNodes(_deps({}), PanelParams())

    def response(eid, round_num):
        return {"round": round_num, "expert_id": eid, "expert_name": eid, "response_text": sentence, "fallback": False}

    same_round = nodes.test_assumptions({"current_round": 1, "response_history": [response("a", 1), response("b", 1)]})
    first = nodes.test_assumptions({"current_round": 1, "response_history": [response("a", 1)]})
    later = nodes.test_assumptions(
        {"current_round": 2, "response_history": [response("a", 1), response("b", 2)], "evidence_map": first["evidence_map"]}
    )
    assert later["evidence_map"] == {}
    assert [len(v) for v in same_round["evidence_map"].values()] == [1]


def test_each_speakers_prompt_extends_its_previous_one():
    """A speaker's next prompt is its previous prompt, its reply, then the new round's message: what a prefix cache
    serves. The new message is the one a speaker without a dialogue would get, so scripted voices read the same."""
    policies = {eid: Recorder(ANSWERS[eid]) for eid in ("ada", "ben", "cy")}
    questions: list = []
    deps = _deps(policies)
    deps.moderator = ScriptedChatModel(policy=lambda messages: questions.append(messages) or QUESTION)
    _run(deps, PanelParams(min_rounds=3, max_rounds=3, convergence_threshold=1.0))
    for calls in [questions, *(p.calls for p in policies.values())]:
        assert len(calls) == 3
        for before, after in itertools.pairwise(calls):
            assert [m.content for m in after[: len(before)]] == [m.content for m in before]
            assert after[len(before)].type == "ai" and after[-1].type == "human" and len(after) == len(before) + 2
    ben_round_2 = policies["ben"].calls[1][-1].content
    assert "Answers in the previous round:\n[Ada Lovelace]" in ben_round_2 and "[Cy Young]" in ben_round_2
    assert "Earlier answers this round:\n[Ada Lovelace]" in ben_round_2 and "[Ben Franklin]" not in ben_round_2
