"""A key or option a letter or two off a valid one says which was meant."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pytest
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

import dialectica
from dialectica.sim.authoring.params import ConfigError, build_params, closest, did_you_mean


def test_the_closest_choice_is_suggested_and_a_far_one_is_not():
    assert closest("temprature", ["temperature", "top_p"]) == "temperature"
    assert did_you_mean("episods", ["episodes", "seed"]) == " (did you mean episodes?)"
    assert did_you_mean("frist", ["first", "errors"], "view.") == " (did you mean view.first?)"
    assert did_you_mean("bogus", ["episodes", "seed"]) == ""  # nothing close: no guess


def test_a_mistyped_parameter_names_the_one_meant():
    @dataclass(frozen=True)
    class Knobs:
        patience: int = 2
        budget: int = 5

    with pytest.raises(ConfigError, match=r"unknown key graph\.patiense \(did you mean graph\.patience\?\); valid"):
        build_params(Knobs, {"patiense": 3}, "graph")


def _desk():
    builder = StateGraph(MessagesState)
    builder.add_node("clerk", lambda state: {"messages": [AIMessage("Here you are.")]})
    builder.add_edge(START, "clerk")
    return builder.compile()


def test_a_scenario_missing_a_key_the_judge_reads_points_at_its_near_miss(tmp_path):
    with pytest.raises(ConfigError, match=r"no 'rubric' \(it has 'rubirc': a typo\?\) for the LLM judge"):
        dialectica.evaluate(
            _desk(),
            scenarios=[{"name": "q", "turns": ["hi"], "rubirc": "the clerk helps"}],
            judge=dialectica.LLMJudge(),
            tracking="none",
            progress=False,
            out_dir=tmp_path / "run",
        )
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("typo", "meant"), [("trajectory_mod", "trajectory_mode"), ("expected_tool", "expected_tools")])
def test_a_typo_of_a_reserved_scenario_key_is_said_not_silently_read_as_the_researchers_own(typo, meant, tmp_path, caplog):
    scenarios = [
        {"name": "q", "turns": ["hi"], typo: ["lookup"], "expect": "a key of the researcher's own"},
        {"name": "both", "turns": ["hi"], "input": {}, "inputs": "mine, beside the reserved one: not a typo"},
    ]
    with caplog.at_level(logging.WARNING):
        dialectica.evaluate(_desk(), scenarios=scenarios, episodes=2, tracking="none", progress=False, out_dir=tmp_path)
    said = [r.getMessage() for r in caplog.records if "is read as your own" in r.getMessage()]
    assert len(said) == 1  # not 'inputs' beside 'input'
    assert said[0].startswith(f"scenario 'q': key '{typo}' is read as your own, not as the reserved '{meant}'")
