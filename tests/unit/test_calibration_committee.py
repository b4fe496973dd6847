"""The committee's behaviour statistics, from hand-built records and from scripted episodes whose knobs move."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
import pytest

from dialectica.graphs.committee.calibration import CALIBRATION, behaviour
from dialectica.sim.analysis.calibration.simulate import simulate
from dialectica.sim.config.calset import CalibratedSet
from dialectica.sim.config.loader import load as load_config


def _said(speaker, position, confidence=0.5, cited=(), target=None, fallback=False):
    return {
        "role": "member",
        "speaker": speaker,
        "round": 1,
        "position": position,
        "confidence": confidence,
        "cited": list(cited),
        "target": target,
        "fallback": fallback,
        "text": "...",
    }


def _vote(speaker, vote):
    return {"role": "participant", "speaker": speaker, "round": 1, "vote": vote, "text": "..."}


def test_statistics_follow_from_the_records():
    record = {
        "termination_reason": "max_rounds",
        "transcript": [
            _said("a", "support", 0.8, ["d1", "d2"]),
            _said("b", "oppose", 0.4),
            _said("a", "nuanced", 0.6, ["d3"], target="b"),
            _said("b", "support", 0.2, fallback=True),
            _said("b", "oppose", 0.6, ["d1"]),
            _vote("a", "support"),
            _vote("b", "oppose"),
            _vote("a", "oppose"),
            _vote("b", "oppose"),
            {"role": "chair", "speaker": "chair", "round": 1, "text": "Summary"},
        ],
        "per_round": [{"vote_share": 0.5}, {"vote_share": 1.0}],
    }
    stats = behaviour([record, {"termination_reason": "error", "error": "boom"}])
    statements = [(0.8, 2, False), (0.4, 0, False), (0.6, 1, True), (0.6, 1, False)]  # the fallback is no one's
    assert stats["position_change"] == pytest.approx((1 + 0) / 2)  # a: support -> nuanced; b: oppose -> oppose
    assert stats["confidence"] == pytest.approx(np.mean([c for c, _, _ in statements]))
    assert stats["citations"] == pytest.approx(np.mean([n for _, n, _ in statements]))
    assert stats["rebuttals"] == pytest.approx(np.mean([t for _, _, t in statements]))
    assert stats["opening_vote_share"] == 0.5 and stats["vote_switch"] == pytest.approx((1 + 0) / 2)


def test_no_records_and_error_records_give_nan():
    for records in ([], [{"termination_reason": "error"}]):
        assert all(math.isnan(v) for v in behaviour(records).values())
    assert set(behaviour([])) == set(CALIBRATION.docs)


def _embed(texts: list[str]) -> np.ndarray:
    """Fixed pseudo-random unit vectors: no model to load."""
    vectors = np.stack(
        [np.frombuffer(hashlib.sha256(t.encode()).digest() * 12, dtype=np.uint8).astype(np.float32) - 127.5 for t in texts]
    )
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def play(tmp_path_factory):
    cfg = load_config(
        ["graph=committee", "participants=scripted", "tracking=none", "graph.committee_size=5", "graph.max_rounds=2"],
        out_dir=tmp_path_factory.mktemp("committee") / "run",
        cwd=Path.cwd(),
    )
    run = cfg.graphs[0]
    return lambda values: behaviour(simulate(run, [{}], 8, 0, CalibratedSet("committee", values), _embed)[0])


def test_persuadable_members_change_position_more(play):
    assert play({"persuadability": 1.0})["position_change"] > play({"persuadability": 0.0})["position_change"]


def test_confidence_is_what_members_state(play):
    assert play({"confidence": 0.9})["confidence"] > play({"confidence": 0.2})["confidence"] + 0.3


def test_conforming_members_give_one_rationale(play):
    assert play({"conformity": 1.0})["rationale_agreement"] > play({"conformity": 0.0})["rationale_agreement"] + 0.1


def test_rationale_agreement_is_the_rounds_detector_score():
    rounds = [{"vote_share": 1.0, "semantic_agreement": 0.6}, {"semantic_agreement": 0.8}, {"semantic_agreement": math.nan}]
    assert behaviour([{"termination_reason": "converged", "transcript": [], "per_round": rounds}])[
        "rationale_agreement"
    ] == pytest.approx(0.7)
