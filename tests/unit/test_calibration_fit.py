"""The calibration machinery on a toy graph: the loss, the split of the grid, the search recovering known
persona values, and calibrated sets read back, applied and rejected with one-line errors."""

from __future__ import annotations

import dataclasses
import math
import random
from pathlib import Path

import pytest
import yaml

from dialectica.sim.analysis.calibration import seeds
from dialectica.sim.analysis.calibration.fit import (
    RATE_SCALE,
    Reference,
    authored_mean,
    authored_personas,
    loss,
    offset_knobs,
    search,
    shifted,
    split,
)
from dialectica.sim.analysis.calibration.job import write_set
from dialectica.sim.authoring.calibration import Calibration, Knob
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.config import calset
from dialectica.sim.config.calset import CalibratedSet


def _behaviour(records):
    answers = [t for r in records if r["termination_reason"] != "error" for t in r["transcript"]]
    if not answers:
        return {"vague": math.nan, "words": math.nan}
    return {
        "vague": sum(t["text"] == "hm" for t in answers) / len(answers),
        "words": sum(len(t["text"].split()) for t in answers) / len(answers),
    }


TOY = Calibration(
    behaviour=_behaviour,
    knobs=(Knob("vagueness", 0.0, 1.0), Knob("length", 1, 9, integer=True)),
    personas=lambda scenario: [(p["id"], p) for p in scenario["people"]],
    scales={"words": 2.0},
)


def _play(values, points=3, episodes=40):
    """Toy episodes: each answer is vague with chance ``vagueness``, else ``length`` words; an episode converges
    when fewer than a third of its answers are vague."""
    v = {"vagueness": 0.2, "length": 3} | (values or {})
    out = []
    for p in range(points):
        rng = random.Random(p)
        rows = []
        for _ in range(episodes):
            turns = [
                {"text": "hm" if rng.random() < v["vagueness"] else " ".join(["w"] * int(v["length"]))} for _ in range(6)
            ]
            vague = sum(t["text"] == "hm" for t in turns)
            rows.append({"termination_reason": "converged" if vague < 2 + p else "max_rounds", "transcript": turns})
        out.append(rows)
    return out


def _rates(played):
    return [sum(r["termination_reason"] == "converged" for r in rows) / len(rows) for rows in played]


def test_the_loss_is_zero_on_a_match_and_weighs_misses_by_their_scales():
    target = {"vague": 0.5, "words": 4.0}
    assert loss(TOY, target, dict(target), [0.2], [0.2]) == 0.0
    # a statistic off by RATE_SCALE of its scale weighs as a rate off by RATE_SCALE
    words = 4.0 + RATE_SCALE * 2.0
    assert loss(TOY, target, {"vague": 0.5, "words": words}, [], []) == pytest.approx(0.5)
    assert loss(TOY, target, {"vague": 0.5 + RATE_SCALE, "words": 4.0}, [0.2], [0.2 + RATE_SCALE]) == pytest.approx(1.5)
    assert loss(TOY, target, dict(target), [0.2, 0.5], [0.2, 0.5 + RATE_SCALE]) == pytest.approx(0.5)
    # a statistic defined on one side only is off by its whole scale; undefined on both sides, no miss
    one_sided = loss(TOY, {"vague": math.nan, "words": 4.0}, {"vague": 0.1, "words": 4.0}, [], [])
    assert one_sided == pytest.approx((1 / RATE_SCALE) ** 2 / 2)
    assert loss(TOY, {"vague": math.nan, "words": 4.0}, {"vague": math.nan, "words": 4.0}, [], []) == 0.0


def test_the_split_holds_out_every_other_point_unless_told():
    assert split(5) == ([0, 2, 4], [1, 3])
    assert split(3, [1]) == ([1], [0, 2])
    with pytest.raises(ConfigError, match="must name grid indices in 0..2"):
        split(3, [3])
    with pytest.raises(ConfigError, match="leaves no grid point held out"):
        split(3, [0, 1, 2])


def _reference(seed, converged, points=({"budget": 3}, {"budget": 6}), episodes=4, graph="toy"):
    """A reference whose LLM converges in ``converged[i]`` of the episodes at point ``i`` (the authored
    scripted cast in all of them)."""

    def rows(k):
        return [{"episode": e, "termination_reason": "converged" if e < k else "max_rounds"} for e in range(episodes)]

    return Reference(
        Path(f"ref-{seed}"), graph, list(points), [rows(k) for k in converged], [rows(episodes) for _ in points], seed, []
    )


def test_seed_hold_out_fits_on_all_but_the_last_seed_unless_told():
    assert seeds.choose_seeds([2]) == ([2], [])
    assert seeds.choose_seeds([2, 5, 7]) == ([2, 5], [7])
    assert seeds.choose_seeds([2, 5, 7], [7, 2]) == ([2, 7], [5])
    assert seeds.choose_seeds([2], [2]) == ([2], [])
    with pytest.raises(ConfigError, match="must name seeds of the references: 2,5"):
        seeds.choose_seeds([2, 5], [3])
    with pytest.raises(ConfigError, match="leaves no reference's seed held out"):
        seeds.choose_seeds([2, 5], [5, 2])


def test_pooled_references_put_every_seeds_episodes_side_by_side_per_point():
    a, b = _reference(2, [1, 2]), _reference(5, [3, 4])
    pooled = seeds.pool([a, b])
    assert [len(rows) for rows in pooled.llm] == [8, 8] and pooled.episodes == 8
    assert pooled.llm[1] == a.llm[1] + b.llm[1] and pooled.scripted[0] == a.scripted[0] + b.scripted[0]
    assert pooled.seed == 2 and pooled.points == a.points
    assert seeds.pool([a]) is a


@pytest.mark.parametrize(
    ("other", "message"),
    [
        (_reference(5, [1], points=({"budget": 3},)), "grid budget=3 against budget=3, budget=6"),
        (_reference(5, [1, 1], episodes=3), "3 episodes per point against 4"),
        (dataclasses.replace(_reference(2, [1, 1]), dir=Path("ref-2b")), "seed 2 like reference=ref-2"),
        (_reference(5, [1, 1], graph="other"), "graph other against toy"),
        (dataclasses.replace(_reference(5, [1, 1]), settings={"max_rounds": 1}), "graph.max_rounds 1 against None"),
        (dataclasses.replace(_reference(5, [1, 1]), model={"preset": "smollm2-135m"}), "llm.preset smollm2-135m against"),
    ],
)
def test_references_that_disagree_are_refused_in_one_line_naming_them(other, message):
    with pytest.raises(ConfigError, match="^reference=ref-.* does not agree with reference=ref-2: ") as err:
        seeds.check_agreement([_reference(2, [1, 1]), other])
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_reference_given_twice_is_named_as_such():
    with pytest.raises(ConfigError, match="^reference=ref-2 is given twice; give each reference once$"):
        seeds.check_agreement([_reference(2, [1, 1]), _reference(5, [1, 1]), _reference(2, [1, 1])])


def test_a_missing_or_unfinished_reference_says_which(tmp_path):
    from dialectica.sim.analysis.calibration.fit import load_reference

    with pytest.raises(ConfigError, match="does not exist"):
        load_reference(tmp_path / "nowhere", "toy")
    (tmp_path / "cut" / "0-llm").mkdir(parents=True)
    with pytest.raises(ConfigError, match="did not finish; run the same command again"):
        load_reference(tmp_path / "cut", "toy")


def test_held_out_seed_cells_say_which_cast_lies_inside_the_llms_interval():
    held = [_reference(7, [0, 4]), _reference(9, [4, 4])]
    calibrated = {7: [[{"termination_reason": "max_rounds"}] * 4] * 2, 9: [[{"termination_reason": "converged"}] * 4] * 2}
    section = seeds.held_out_seeds(held, calibrated)
    assert [(c["seed"], c["config"]) for c in section["cells"]] == [
        (7, "budget=3"),
        (7, "budget=6"),
        (9, "budget=3"),
        (9, "budget=6"),
    ]
    # authored converges always: outside at (7, budget=3) only; calibrated never converges on seed 7
    assert [c["scripted_inside_llm_ci"] for c in section["cells"]] == [False, True, True, True]
    assert [c["calibrated_inside_llm_ci"] for c in section["cells"]] == [True, False, True, True]
    assert section["inside"] == {"scripted": 3, "calibrated": 3} and section["total"] == 4
    assert section["share"] == {"scripted": 0.75, "calibrated": 0.75} and not seeds.worse(section)
    calibrated[9] = calibrated[7]
    assert seeds.worse(seeds.held_out_seeds(held, calibrated))
    assert not seeds.worse(seeds.held_out_seeds([], {})) and seeds.markdown(seeds.held_out_seeds([], {})) == []
    assert "| 7 | budget=3 | 0.00 (0.00-0.49) | 1.00 | no | 0.00 | yes |" in seeds.markdown(section)


def test_the_search_recovers_the_values_that_made_the_reference():
    truth = {"vagueness": 0.55, "length": 7}
    reference = _play(truth)
    target = _behaviour([r for rows in reference for r in rows])
    found = search(TOY, _play, target, _rates(reference), trials=60, seed=0)
    assert found.values["vagueness"] == pytest.approx(truth["vagueness"], abs=0.12)
    assert found.values["length"] == truth["length"] and isinstance(found.values["length"], int)
    assert found.loss < found.authored_loss and len(found.trials) == 60
    again = search(TOY, _play, target, _rates(reference), trials=60, seed=0)
    assert again.values == found.values  # seeded


def test_a_calibrated_set_is_applied_to_copies_of_every_persona(tmp_path):
    scenario = {"people": [{"id": "a", "vagueness": 0.1, "length": 2}, {"id": "b", "vagueness": 0.9, "length": 2}]}
    chosen = CalibratedSet("toy", {"vagueness": 0.4}, {"b": {"length": 8}}, {"model": {"model": "m"}})
    applied = chosen.apply(scenario, TOY)
    assert [(p["vagueness"], p["length"]) for p in applied["people"]] == [(0.4, 2), (0.4, 8)]
    assert scenario["people"][0]["vagueness"] == 0.1  # the prepared scenario itself is left alone
    path = write_set(tmp_path / calset.FILE, chosen)
    back = calset.read(path, "toy", TOY)
    assert back.shared == chosen.shared and back.personas == chosen.personas and back.provenance == chosen.provenance
    assert path.read_text().startswith("# Calibrated persona values") and not list(tmp_path.glob("*.tmp"))


def test_a_persona_id_misspelt_in_the_set_is_refused_not_left_authored():
    scenario = {"people": [{"id": "planner", "vagueness": 0.1, "length": 2}, {"id": "b", "vagueness": 0.9, "length": 2}]}
    typo = CalibratedSet("toy", {"vagueness": 0.4}, {"planer": {"length": 8}})
    with pytest.raises(ConfigError, match=r"^set.yaml: personas.planer is no persona .*\(did you mean planner\?\)"):
        typo.check_ids([scenario], TOY, Path("set.yaml"))
    other_graphs = CalibratedSet("toy", {"vagueness": 0.4}, {"b": {"length": 8}, "someone_else": {"length": 3}})
    other_graphs.check_ids([scenario], TOY, Path("set.yaml"))  # an id far from any is another scenario's


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no calibrated set for graph toy at .*dialectica calibrate graph=toy"),
        ("graph: toy\nshared: {speed: 1}\n", r"shared.speed is not a calibrated key; valid keys: vagueness, length"),
        ("graph: toy\nshared: {vagueness: 2}\n", r"shared.vagueness=2 is out of range; valid range: \[0.0, 1.0\]"),
        ("graph: toy\npersonas: {a: {length: yes}}\n", r"personas.a.length=True is out of range"),
        ("graph: other\n", "expected a mapping with graph: toy"),
        ("graph: [toy\n", "malformed calibrated set .*: ScannerError|malformed calibrated set .*: ParserError"),
    ],
)
def test_a_bad_calibrated_set_is_one_line_naming_the_file(tmp_path, content, message):
    path = tmp_path / calset.FILE
    if content is not None:
        path.write_text(content)
    with pytest.raises(ConfigError, match=message) as info:
        calset.read(path, "toy", TOY)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_written_sets_are_plain_yaml_without_nan(tmp_path):
    chosen = CalibratedSet("toy", {"vagueness": 0.4}, fit={"spearman": math.nan})
    data = yaml.safe_load(write_set(tmp_path / calset.FILE, chosen).read_text())
    assert data["fit"]["spearman"] is None and data["shared"] == {"vagueness": 0.4}


def test_integer_knobs_reach_the_cast_as_integers_and_values_that_break_it_are_never_chosen():
    def fragile(values):
        played = _play(values)
        if values is not None and (not isinstance(values["length"], int) or values["vagueness"] > 0.5):
            return [[{"termination_reason": "error"} for _ in rows] for rows in played]
        return played

    reference = _play({"vagueness": 0.9, "length": 4})  # out of the cast's reach: the fit must stay where it works
    target = _behaviour([r for rows in reference for r in rows])
    found = search(TOY, fragile, target, _rates(reference), trials=30, seed=1)
    assert found.values["vagueness"] <= 0.5 and isinstance(found.values["length"], int)
    assert all(isinstance(t["length"], int) for t in found.trials)


def test_the_search_starts_from_the_authored_personas_mean():
    scenarios = [
        {"people": [{"id": "a", "vagueness": 0.1, "length": 2}, {"id": "b", "vagueness": 0.5, "length": 5}]},
        {"people": [{"id": "a", "vagueness": 0.1, "length": 2}]},
    ]  # a persona counts once
    start = authored_mean(TOY, scenarios)
    assert start == {"vagueness": pytest.approx(0.3), "length": 4}
    reference = _play(None)
    found = search(TOY, _play, _behaviour([r for rows in reference for r in rows]), _rates(reference), trials=3, start=start)
    assert {k: found.trials[0][k] for k in start} == start


def test_offsets_shift_each_authored_persona_within_range_and_zero_gives_the_cast_as_written():
    scenarios = [{"people": [{"id": "a", "vagueness": 0.1, "length": 2}, {"id": "b", "vagueness": 0.9}]}]
    authored = authored_personas(TOY, scenarios)
    assert authored == {"a": {"vagueness": 0.1, "length": 2.0}, "b": {"vagueness": 0.9}}
    assert shifted(TOY, authored, {"vagueness": 0.0, "length": 0}) == authored
    moved = shifted(TOY, authored, {"vagueness": 0.3, "length": -4})
    # the spread between personas is kept until a range's end clips it; an unset knob stays unset
    assert moved == {"a": {"vagueness": pytest.approx(0.4), "length": 1}, "b": {"vagueness": 1.0}}
    assert isinstance(moved["a"]["length"], int)
    assert [(k.name, k.low, k.high, k.integer) for k in offset_knobs(TOY)] == [
        ("vagueness", -1.0, 1.0, False),
        ("length", -8, 8, True),
    ]


def test_an_offset_search_starts_at_the_authored_cast_so_it_never_ends_worse():
    scenarios = [{"people": [{"id": "a", "vagueness": 0.1, "length": 2}, {"id": "b", "vagueness": 0.5, "length": 5}]}]
    authored = authored_personas(TOY, scenarios)

    def play(offsets):
        """Toy episodes of both personas in turn, each with its own (shifted) values."""
        people = authored if offsets is None else shifted(TOY, authored, offsets)
        halves = [_play(dict(p), episodes=20) for p in people.values()]
        return [a + b for a, b in zip(*halves, strict=True)]

    reference = play({"vagueness": 0.2, "length": 1})  # the cast shifted: within reach of an offset
    target = _behaviour([r for rows in reference for r in rows])
    found = search(
        TOY,
        play,
        target,
        _rates(reference),
        trials=16,
        seed=3,
        start={"vagueness": 0.0, "length": 0},
        knobs=offset_knobs(TOY),
        local=True,
    )
    assert found.trials[0]["loss"] == found.authored_loss  # trial 0 is the cast as written
    assert found.loss == min(t["loss"] for t in found.trials) < found.authored_loss  # and moves nearer the reference
    assert max(abs(t["vagueness"]) for t in found.trials) < 1.0  # a local search: no draw across the whole range


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["trails=40"], r"^unknown key trails \(did you mean trials\?\); calibrate's keys: graph, reference"),
        (["reference=a,b", "fit_seed=0"], r"^unknown key fit_seed \(did you mean fit_seeds\?\)"),
        (["reference=a,b", "fit_seeds=seed0"], r"^fit_seeds=seed0 is invalid; valid: the references' seeds"),
        (["fit=0,x"], r"^fit=0,x is invalid; valid: grid indices"),
        (["trials=4,5"], r"^trials=4,5 is invalid; valid: a whole number"),
    ],
)
def test_a_bad_calibrate_argument_names_its_own_key(argv, message):
    from dialectica.sim.analysis.calibration.job import parse

    with pytest.raises(ConfigError, match=message):
        parse(["graph=interview", *argv])
