"""The panel's behaviour statistics, from hand-built records and from scripted episodes whose persona knobs move."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from dialectica.graphs.socratic_panel.calibration import CALIBRATION, behaviour
from dialectica.sim.analysis.calibration.simulate import simulate
from dialectica.sim.config.calset import CalibratedSet
from dialectica.sim.config.loader import load as load_config


def _turn(speaker, claims, round_=1, fallback=False):
    return {
        "role": "participant",
        "speaker": speaker,
        "round": round_,
        "claims": claims,
        "fallback": fallback,
        "text": "...",
    }


def test_statistics_follow_from_the_records():
    record = {
        "termination_reason": "max_rounds",
        "transcript": [
            {"role": "moderator", "speaker": "moderator", "round": 1, "text": "Why?"},
            _turn("a", ["x", "y"]),
            _turn("b", ["x"]),
            _turn("a", ["x", "z"], 2),
            _turn("b", ["w"], 2, fallback=True),
            _turn("b", ["x"], 3),
        ],
        "per_round": [{"jaccard_agreement": 0.2}, {"jaccard_agreement": 0.5}, {"jaccard_agreement": 0.6}],
        "metrics": {"rounds": 3, "assumptions": 6, "evidence_completeness": 0.5},
    }
    stats = behaviour([record, {"termination_reason": "error", "error": "boom"}])
    assert stats["claims_per_answer"] == pytest.approx((2 + 1 + 2 + 1) / 4)  # the fallback is not an answer
    # a: {x,y} -> {x,z} shares 1 of 3; b: {x} -> {x} (its fallback skipped) shares all
    assert stats["stance_change"] == pytest.approx(((1 - 1 / 3) + 0.0) / 2)
    assert stats["agreement_first"] == 0.2 and stats["agreement_drift"] == pytest.approx(0.4)
    assert stats["assumptions_per_round"] == 2.0 and stats["evidence_completeness"] == 0.5


def test_no_records_and_error_records_give_nan():
    for records in ([], [{"termination_reason": "error"}]):
        assert all(math.isnan(v) for v in behaviour(records).values())
    assert set(behaviour([])) == set(CALIBRATION.docs)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    cfg = load_config(
        ["graph=socratic_panel", "participants=scripted", "tracking=none"],
        out_dir=tmp_path_factory.mktemp("panel") / "run",
        cwd=Path.cwd(),
    )
    return cfg.graphs[0]


def _stats(run, values):
    [rows] = simulate(run, [{}], episodes=12, seed=0, calset=CalibratedSet("socratic_panel", values))
    return behaviour(rows)


def test_yielding_experts_change_stance_more_than_stubborn_ones(run):
    yielding = _stats(run, {"stubbornness": 0.0, "persuadability": 1.0})
    stubborn = _stats(run, {"stubbornness": 1.0, "persuadability": 0.0})
    assert yielding["stance_change"] > stubborn["stance_change"]
    assert yielding["agreement_drift"] > stubborn["agreement_drift"]


def test_verbose_open_experts_surface_and_back_more(run):
    quiet = _stats(run, {"openness": 0.0, "verbosity": 0.0})
    talkative = _stats(run, {"openness": 1.0, "verbosity": 1.0})
    assert talkative["evidence_completeness"] > quiet["evidence_completeness"]
    assert talkative["assumptions_per_round"] > quiet["assumptions_per_round"]
