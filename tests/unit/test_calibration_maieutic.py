"""The maieutic learner's behaviour statistics on hand-made records, and its persona knobs moving them on real
scripted dialogues."""

from __future__ import annotations

import hashlib
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import yaml

from dialectica.graphs.maieutic import SPEC
from dialectica.graphs.maieutic.calibration import CALIBRATION, behaviour
from dialectica.sim.analysis.calibration.simulate import simulate
from dialectica.sim.config.calset import CalibratedSet
from dialectica.sim.config.loader import load as load_config


def _record(turns: list[tuple[str, bool, bool, float]]) -> dict:
    """A maieutic record from (learner's words, revised, circled, frustration after it) per learner turn."""
    transcript = [
        t
        for r, (text, *_) in enumerate(turns, 1)
        for t in (
            {"round": r, "role": "participant", "speaker": "learner", "text": text, "fallback": False},
            {
                "round": r,
                "role": "system",
                "speaker": "sophia",
                "text": "What follows from it?",
                "move": "EXAMINE",
                "critic_loops": 0,
                "fallback": False,
            },
        )
    ]
    per_round = [
        {"round": r, "move": "EXAMINE", "revised": revised, "circled": circled, "frustration": frustration}
        for r, (_, revised, circled, frustration) in enumerate(turns, 1)
    ]
    return {
        "graph": "maieutic",
        "termination_reason": "converged",
        "transcript": transcript,
        "per_round": per_round,
        "metrics": {"rounds": len(turns)},
        "labels": {},
        "artifacts": {},
    }


LONG = [
    ("I think justice is fairness.", False, False, 0.0),
    ("Why?", False, False, 0.0),  # bare why
    ("Stop asking me trick questions! I already told you that justice is fairness.", False, False, 3.0),  # defensive
    ("I think justice is helping friends.", True, False, 2.0),  # revised
    ("Maybe I was right at first: justice is fairness.", False, True, 1.0),  # circled
    ("I don't know. I give up.", False, False, 1.0),  # gives up
]
SHORT = [("I think justice is owed.", False, False, 0.0), ("How so?", False, False, 0.0)]  # bare why


def test_statistics_follow_from_the_learner_turns():
    got = behaviour([_record(LONG), {"graph": "maieutic", "termination_reason": "error", "error": "boom"}, _record(SHORT)])
    n = len(LONG) + len(SHORT)
    assert got["revise"] == pytest.approx(1 / n)
    assert got["circle"] == pytest.approx(1 / n)
    assert got["give_up"] == pytest.approx(1 / n)
    assert got["bare_why"] == pytest.approx(2 / n)
    assert got["defensive"] == pytest.approx(1 / n)
    assert got["frustration"] == pytest.approx(sum(t[3] for t in LONG + SHORT) / n)
    assert got["turns"] == pytest.approx((len(LONG) + len(SHORT)) / 2)
    assert set(got) == set(CALIBRATION.docs)


@pytest.mark.parametrize("records", [[], [{"graph": "maieutic", "termination_reason": "error", "error": "boom"}]])
def test_no_turns_give_nan(records):
    got = behaviour(records)
    assert set(got) == set(CALIBRATION.docs) and all(math.isnan(v) for v in got.values())


def test_knobs_are_the_keys_every_persona_holds_within_range():
    assert SPEC.calibration is CALIBRATION
    path = Path(__file__).resolve().parents[2] / "datasets" / "maieutic" / "personas.yaml"
    for persona in yaml.safe_load(path.read_text())["personas"]:
        for knob in CALIBRATION.knobs:
            assert knob.low <= persona[knob.name] <= knob.high, (persona["id"], knob.name)


def _embed(texts: list[str]) -> np.ndarray:
    """Fixed pseudo-random unit vectors: no model to load; the Librarian finds nothing over its floor."""
    vectors = np.stack(
        [np.frombuffer(hashlib.sha256(t.encode()).digest() * 12, dtype=np.uint8).astype(np.float32) - 127.5 for t in texts]
    )
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def stats(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("maieutic")
    run = load_config(["graph=maieutic", "participants=scripted", "tracking=none"], out_dir=tmp / "run", cwd=tmp).graphs[0]

    @cache
    def play(**values: float) -> dict[str, float]:
        calset = CalibratedSet("maieutic", dict(values))
        return behaviour(simulate(run, [{}], episodes=24, seed=0, calset=calset, embed=_embed)[0])

    return play


@pytest.mark.parametrize(
    ("low", "high", "moves"),
    [
        ({"terseness": 0.0}, {"terseness": 0.6}, {"bare_why": 0.2}),
        ({"openness": 0.0}, {"openness": 1.0}, {"revise": 0.1}),
        ({"circling": 0.0}, {"circling": 0.6}, {"circle": 0.07}),
        ({"give_up": 0.0}, {"give_up": 0.6}, {"give_up": 0.1, "turns": -3.0}),
        ({"fatigue_rate": 0.0}, {"fatigue_rate": 0.3}, {"give_up": 0.05, "turns": -3.0}),
        ({"patience": 1.0}, {"patience": 0.0}, {"frustration": 1.0}),
        ({"patience": 0.0, "defensiveness": 0.0}, {"patience": 0.0, "defensiveness": 1.0}, {"defensive": 0.08}),
    ],
    ids=["terseness", "openness", "circling", "give_up", "fatigue_rate", "patience", "defensiveness"],
)
def test_a_knob_moves_its_statistic_on_scripted_dialogues(stats, low, high, moves):
    a, b = stats(**low), stats(**high)
    for statistic, by in moves.items():
        assert (b[statistic] - a[statistic]) * math.copysign(1, by) > abs(by), (statistic, a[statistic], b[statistic])
