"""The interview's behaviour statistics on hand-made records, and its persona knobs moving them on real
scripted episodes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from dialectica.graphs.interview import SPEC
from dialectica.graphs.interview.calibration import CALIBRATION, behaviour
from dialectica.sim.analysis.calibration.simulate import simulate
from dialectica.sim.config.calset import CalibratedSet
from dialectica.sim.config.loader import load as load_config

SCHEMA = [
    {"name": "steps", "kind": "list", "required": True, "min_items": 3},
    {"name": "mode", "kind": "choice", "required": True, "min_items": 1},
    {"name": "lines", "kind": "number", "required": True, "min_items": 1},
    {"name": "note", "kind": "text", "required": False, "min_items": 1},
]
TRUTH = {"steps": ["mix", "bake", "pack"], "mode": "batch", "lines": 2, "note": "ovens first"}


def _record(qa: list[tuple[str, str, dict]]) -> dict:
    """An interview record from (field asked, answer, SCR read from it) per question."""
    transcript = [
        t
        for r, (field, text, _) in enumerate(qa, 1)
        for t in (
            {"round": r, "role": "system", "speaker": "interviewer", "text": f"About {field}?"},
            {"round": r, "role": "participant", "speaker": "expert", "text": text},
        )
    ]
    turns = [{"round": r, "field": field, "scr": scr} for r, (field, _, scr) in enumerate(qa, 1)]
    return {
        "graph": "interview",
        "termination_reason": "budget_exhausted",
        "transcript": transcript,
        "per_round": [{"round": t["round"], "field": t["field"], "wasted": not t["scr"]} for t in turns],
        "metrics": {},
        "labels": {"persona": "p", "schema": "s"},
        "artifacts": {
            "schema.json": json.dumps(SCHEMA),
            "truth.json": json.dumps(TRUTH),
            "ascr_turns.json": json.dumps(turns),
        },
    }


QA = [
    ("steps", "The main ones are mixing and baking.", {"steps": ["mix", "bake"]}),  # 2 new true facts, 2 items
    ("mode", "Hard to say, it varies a lot.", {}),  # empty and evasive
    ("lines", "We run nonstop and we mix.", {"mode": "continuous", "steps": ["mix"]}),  # off target; 1 false, 0 new
    ("steps", "Packing and painting.", {"steps": ["pack", "paint"]}),  # 1 new, 1 false, 2 items
    ("note", "Mostly ovens first.", {"note": "Mostly ovens first"}),  # on target, but free text is no fact
]


def test_statistics_follow_from_the_answers():
    got = behaviour([_record(QA), {"graph": "interview", "termination_reason": "error", "error": "boom"}])
    n = len(QA)
    assert got["empty"] == pytest.approx(1 / n)
    assert got["evasive"] == pytest.approx(1 / n)
    assert got["off_target"] == pytest.approx(1 / n)
    assert got["new_facts"] == pytest.approx((2 + 0 + 0 + 1 + 0) / n)
    assert got["list_items"] == pytest.approx((2 + 2) / 2)
    assert got["false_facts"] == pytest.approx((0 + 1 + 1) / (2 + 2 + 2))
    assert set(got) == set(CALIBRATION.docs)


def test_a_fact_already_known_is_not_new_and_no_list_answer_leaves_items_undefined():
    got = behaviour(
        [_record([("mode", "We run lot by lot.", {"mode": "batch"}), ("mode", "Lot by lot, yes.", {"mode": "batch"})])]
    )
    assert got["new_facts"] == pytest.approx(1 / 2)
    assert got["false_facts"] == 0.0
    assert math.isnan(got["list_items"])


@pytest.mark.parametrize("records", [[], [{"graph": "interview", "termination_reason": "error", "error": "boom"}]])
def test_no_answers_give_nan(records):
    got = behaviour(records)
    assert set(got) == set(CALIBRATION.docs) and all(math.isnan(v) for v in got.values())


def test_knobs_are_the_keys_every_persona_holds_within_range():
    assert SPEC.calibration is CALIBRATION
    for path in sorted((Path(__file__).resolve().parents[2] / "datasets" / "interview" / "personas").glob("*.yaml")):
        persona = yaml.safe_load(path.read_text())
        for knob in CALIBRATION.knobs:
            assert knob.low <= persona[knob.name] <= knob.high, (path.name, knob.name)
            assert isinstance(persona[knob.name], int) == knob.integer, (path.name, knob.name)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("interview")
    return load_config(["graph=interview", "participants=scripted", "tracking=none"], out_dir=tmp / "run", cwd=tmp).graphs[0]


def _stats(run, values: dict) -> dict[str, float]:
    return behaviour(simulate(run, [{}], episodes=24, seed=0, calset=CalibratedSet("interview", values))[0])


@pytest.mark.parametrize(
    ("values", "low", "high", "statistic", "up"),
    [
        ({"off_topic": 0.0}, {"vagueness": 0.0}, {"vagueness": 0.8}, "evasive", True),
        ({"vagueness": 0.0}, {"off_topic": 0.0}, {"off_topic": 0.8}, "empty", True),
        ({"vagueness": 0.0}, {"off_topic": 0.0}, {"off_topic": 0.8}, "new_facts", False),
        ({}, {"contradiction": 0.0}, {"contradiction": 0.5}, "false_facts", True),
        ({}, {"items_per_answer": 1}, {"items_per_answer": 4}, "list_items", True),
    ],
)
def test_a_knob_moves_its_statistic_on_scripted_episodes(run, values, low, high, statistic, up):
    a, b = _stats(run, values | low)[statistic], _stats(run, values | high)[statistic]
    assert (b > a + 0.2) if up else (b < a - 0.2), (statistic, a, b)


def test_off_topic_answers_are_not_evasive(run):
    assert _stats(run, {"vagueness": 0.0, "off_topic": 0.8})["evasive"] < 0.1
