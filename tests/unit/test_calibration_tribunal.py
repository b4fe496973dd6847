"""Tribunal calibration: the judges' persona mappings in the prepared scenario, the behaviour statistics on
hand-built records, and the knobs moving their statistics on real scripted episodes."""

from __future__ import annotations

import copy
import json
import math
import statistics
from pathlib import Path

import pytest

from dialectica.graphs.tribunal import SPEC
from dialectica.graphs.tribunal.build import prepare_scenario
from dialectica.graphs.tribunal.calibration import CALIBRATION, DOCS, behaviour, personas
from dialectica.graphs.tribunal.scripted import JUDGE_DEFAULTS, JUDGE_KEYS, judge_personas
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.config.calset import CalibratedSet
from dialectica.sim.config.scenarios import load_scenarios

P, D, T = "prosecutor", "defense", "tech_lead"


EVIDENCE = ("e1", "e2", "e3", "e4", "e5", "e6", "repo_investigator-timeout")


def _record(rounds, rulings, reason="converged", fallback=()):
    """A record as the tribunal writes it: ``rounds`` {round: {judge: {criterion: (score, cited, parsed)}}},
    ``rulings`` [(decision, contested, number of criteria)] per round, the report listing ``EVIDENCE``; judges
    in ``fallback`` (round, judge) parsed nothing."""
    transcript = []
    for r, judges in rounds.items():
        for judge, ops in judges.items():
            transcript.append(
                {
                    "round": r,
                    "role": "participant",
                    "speaker": judge,
                    "text": "...",
                    "fallback": (r, judge) in fallback,
                    "claims": [],
                    "opinions": [
                        {"criterion": c, "score": s, "cited": list(cited), "parsed": parsed}
                        for c, (s, cited, parsed) in ops.items()
                    ],
                }
            )
    rounds_json = [
        {
            "round": i + 1,
            "decision": decision,
            "contested": list(contested),
            "verdicts": [{"criterion": f"c{k}"} for k in range(n)],
        }
        for i, (decision, contested, n) in enumerate(rulings)
    ]
    report = "# Audit report\n\n## Evidence\n" + "".join(
        f"- {e} (repo_investigator, {'not found' if 'timeout' in e else 'found'}): what {e} says\n" for e in EVIDENCE
    )
    return {
        "graph": "tribunal",
        "termination_reason": reason,
        "transcript": transcript,
        "per_round": [],
        "metrics": {},
        "labels": {},
        "artifacts": {"rulings.json": json.dumps({"dispersion_threshold": 2.0, "rounds": rounds_json}), "report.md": report},
    }


# Round 1: the bench splits on c1 (1, 4, 2); on c2 the tech lead's reply scored nothing (a neutral 3, unparsed).
# The Chief Justice reopens c1; round 2: c1 (2, 3, 2), c2 restated (2, 3, unparsed 3). "<evidence id>" and e9
# are no evidence of the case.
ROUND1 = {
    P: {"c1": (1, ["e1", "<evidence id>"], True), "c2": (2, ["e1", "e3"], True)},
    D: {"c1": (4, ["e1", "e2"], True), "c2": (3, [], True)},
    T: {"c1": (2, [], True), "c2": (3, [], False)},
}
ROUND2 = {
    P: {"c1": (2, ["e1"], True), "c2": (2, ["e1", "e3"], True)},
    D: {"c1": (3, ["e2"], True), "c2": (3, [], True)},
    T: {"c1": (2, ["e4", "repo_investigator-timeout", "e9"], True), "c2": (3, [], False)},
}


def _opinions(*rounds):
    return [(s, cited, parsed) for judges in rounds for ops in judges.values() for s, cited, parsed in ops.values()]


def test_behaviour_of_hand_built_records_follows_from_them():
    sent_back = _record({1: ROUND1, 2: ROUND2}, [("reevaluate", ["c1"], 2), ("report", [], 2)], reason="max_rounds")
    # a second episode that settles at the first reading; the defense's reply parsed nothing (a fallback turn)
    settled = _record(
        {
            1: {
                P: {"c1": (3, ["e5"], True), "c2": (4, [], True)},
                D: {"c1": (3, [], False), "c2": (3, [], False)},
                T: {"c1": (4, ["e6", "e7"], True), "c2": (5, [], True)},
            }
        },
        [("report", [], 2)],
        fallback={(1, D)},
    )
    wild = _record({1: {P: {"c1": (5, ["x"] * 9, True)}, D: {"c1": (1, [], True)}}}, [("report", ["c1"], 1)], reason="error")
    got = behaviour([sent_back, settled, wild])

    c1, c2 = ({j: ROUND1[j][c][0] for j in ROUND1 if ROUND1[j][c][2]} for c in ("c1", "c2"))
    assert got["spread"] == pytest.approx(
        statistics.fmean([max(c1.values()) - min(c1.values()), max(c2.values()) - min(c2.values()), 4 - 3, 5 - 4])
    )
    assert got["gap"] == pytest.approx(statistics.fmean([c1[P] - c1[D], c2[P] - c2[D]]))  # settled: no defense
    assert got["discrimination"] == pytest.approx(
        statistics.fmean(
            [
                statistics.pstdev([c1[P], c2[P]]),
                statistics.pstdev([c1[D], c2[D]]),  # the tech lead scored one criterion
                statistics.pstdev([3, 4]),
                statistics.pstdev([4, 5]),
            ]
        )
    )
    assert got["disputed"] == pytest.approx(statistics.fmean([1 / 2, 0 / 2]))
    again = {j: ROUND2[j]["c1"][0] for j in ROUND2}
    assert got["shift"] == pytest.approx(statistics.fmean([abs(again[j] - c1[j]) for j in (P, D, T)]))
    assert got["narrowing"] == pytest.approx(
        (max(c1.values()) - min(c1.values())) - (max(again.values()) - min(again.values()))
    )
    cited = [c for _, c, parsed in _opinions(ROUND1, ROUND2) if parsed] + [["e5"], [], ["e6", "e7"], []]
    assert got["citations"] == pytest.approx(statistics.fmean(len(set(c) & set(EVIDENCE)) for c in cited))
    assert got["citations"] < statistics.fmean(len(c) for c in cited)  # the strays are not counted
    flags = [parsed for _, _, parsed in _opinions(ROUND1, ROUND2)] + [True, True, False, False, True, True]
    assert got["unscored"] == pytest.approx(flags.count(False) / len(flags))
    assert set(got) == set(DOCS)


def test_no_data_is_nan():
    wild = _record({1: {P: {"c1": (5, ["e1"], True)}, D: {"c1": (1, [], True)}}}, [("report", [], 1)], reason="error")
    for records in ([], [wild]):
        assert all(math.isnan(v) for v in behaviour(records).values())
    # one reading, nobody sent back: nothing for the re-examination statistics
    once = behaviour([_record({1: ROUND1}, [("report", [], 2)])])
    assert math.isnan(once["shift"]) and math.isnan(once["narrowing"]) and once["spread"] > 0
    # a partial report (a collector crashed before the bench sat): no opinions, no rulings
    partial = {
        "termination_reason": "partial_report",
        "transcript": [],
        "artifacts": {"rulings.json": json.dumps({"rounds": []})},
    }
    assert all(math.isnan(v) for v in behaviour([partial]).values())


def test_prepared_scenarios_carry_todays_judges_and_a_scenario_may_set_its_own():
    for scenario in load_scenarios(SPEC.datasets, SPEC, "all"):
        assert scenario["judges"] == JUDGE_DEFAULTS
    case = load_scenarios(SPEC.datasets, SPEC, "auth_service")[0]
    raw = {k: v for k, v in case.items() if k != "judges"}
    own = prepare_scenario(copy.deepcopy(raw) | {"judges": {D: {"noise": 1, "stand": 0.5}}}, SPEC.datasets)
    assert own["judges"][D] == JUDGE_DEFAULTS[D] | {"noise": 1.0, "stand": 0.5}
    assert own["judges"][P] == JUDGE_DEFAULTS[P]
    for bad, says in (
        ({"judge": {}}, "no judge"),
        ({P: {"zeal": 1.0}}, "no judge key"),
        ({P: {"noise": -1.0}}, "noise"),
        ({P: {"stand": "high"}}, "stand"),
        ([1], "map judge names"),
    ):
        with pytest.raises(ConfigError, match=says):
            prepare_scenario(copy.deepcopy(raw) | {"judges": bad}, SPEC.datasets)


def test_a_calibrated_set_reaches_every_judge_and_keeps_their_pulls():
    case = load_scenarios(SPEC.datasets, SPEC, "auth_service")[0]
    out = CalibratedSet("tribunal", {"noise": 1.25, "stand": 0.5}).apply(case, CALIBRATION)
    assert [name for name, _ in personas(out)] == list(JUDGE_DEFAULTS)
    for name, mapping in personas(out):
        assert mapping == JUDGE_DEFAULTS[name] | {"noise": 1.25, "stand": 0.5}
    assert case["judges"] == JUDGE_DEFAULTS  # the prepared scenario itself is left alone
    assert personas({})[0] == (P, JUDGE_DEFAULTS[P])  # an unprepared scenario gets today's judges


def test_knobs_are_judge_keys_whose_ranges_hold_todays_values():
    assert SPEC.calibration is CALIBRATION
    for knob in CALIBRATION.knobs:
        assert knob.name in JUDGE_KEYS and knob.name != "pull" and knob.doc
        assert all(knob.low <= judge[knob.name] <= knob.high for judge in JUDGE_DEFAULTS.values())
        judge_personas({P: {knob.name: knob.low}, D: {knob.name: knob.high}})  # the whole range is valid
    assert set(CALIBRATION.docs) == set(behaviour([]))
    assert set(CALIBRATION.scales) <= set(CALIBRATION.docs)


# --- real scripted episodes ---------------------------------------------------------------------------------

EPISODES = 12  # two per scenario


@pytest.fixture(scope="module")
def tribunal_run(tmp_path_factory):
    from dialectica.sim.config.loader import load as load_config

    # the collector planted to hang would sleep hang_s (it never crosses the deadline): no need to wait for it;
    # the collectors' short delays (a tenth of a second) still run
    cfg = load_config(
        ["graph=tribunal", "participants=scripted", "tracking=none", "graph.cast.hang_s=0"],
        out_dir=tmp_path_factory.mktemp("tribunal") / "run",
        cwd=Path.cwd(),
    )
    return cfg.graphs[0]


def _stats(run, values):
    from dialectica.sim.analysis.calibration.simulate import simulate

    rows = simulate(run, [{}], episodes=EPISODES, seed=0, calset=CalibratedSet("tribunal", values))[0]
    assert all(r["termination_reason"] != "error" for r in rows)
    return behaviour(rows)


@pytest.mark.parametrize(
    "statistic, low, high",
    [
        ("spread", {"noise": 0.0}, {"noise": 2.0}),
        ("shift", {"noise": 0.0}, {"noise": 2.0}),
        ("narrowing", {"give_low": 0.0, "give_high": 0.0}, {"give_low": 1.0, "give_high": 1.0}),
        ("discrimination", {"centre": 1.0}, {"centre": 0.0}),
        ("disputed", {"zeal_low": 0.0, "zeal_high": 0.5}, {"zeal_low": 3.0, "zeal_high": 4.0}),
        ("unscored", {"skip": 0.0}, {"skip": 0.4}),
    ],
)
def test_a_knob_moves_its_statistic(tribunal_run, statistic, low, high):
    assert _stats(tribunal_run, low)[statistic] < _stats(tribunal_run, high)[statistic]


def test_zeal_widens_the_prosecutor_defense_gap_and_a_judge_that_stands_never_shifts(tribunal_run):
    calm, zealous = (_stats(tribunal_run, {"zeal_low": z, "zeal_high": z}) for z in (0.0, 3.0))
    assert abs(calm["gap"]) < 0.5 < 2.0 < -zealous["gap"]  # the prosecutor scores below the defense
    assert _stats(tribunal_run, {"stand": 1.0})["shift"] == 0.0
