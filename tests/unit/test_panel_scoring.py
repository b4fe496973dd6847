"""Every router and convergence criterion of the Socratic panel, including the seed's examples."""

from __future__ import annotations

import pytest

from dialectica.graphs.socratic_panel import scoring
from dialectica.graphs.socratic_panel.params import PanelParams

P = PanelParams()


def _converge(**overrides):
    values = dict(current_round=4, depth=6, agreement=0.85, completeness=0.90, unresolved=0, voices=3, quorum=2, p=P)
    return scoring.check_convergence(**(values | overrides))


def test_seed_example_converges_and_routes_to_converged():
    converged, reason, unmet = _converge()
    assert converged and unmet == []
    assert reason == "Converged at round 4"
    assert scoring.route_after_check(converged, 4, P.max_rounds) == "converged"


def test_seed_example_round_five_of_five_unconverged_is_max_rounds():
    assert scoring.route_after_check(False, 5, 5) == "max_rounds"
    assert scoring.route_after_check(False, 4, 5) == "continue"


@pytest.mark.parametrize(
    ("override", "criterion", "fragment"),
    [
        ({"depth": 4}, "depth", "Depth: 4/5"),
        ({"agreement": 0.79}, "agreement", "Agreement: 0.79/0.8"),
        ({"completeness": 0.84}, "evidence", "Evidence: 0.84/0.85"),
        ({"unresolved": 2}, "contradictions", "Contradictions: 2 unresolved"),
        ({"current_round": 2}, "min_rounds", "Rounds: 2/3 minimum"),
        ({"voices": 1}, "quorum", "Voices: 1/2"),
    ],
)
def test_each_unmet_criterion_blocks_and_is_named(override, criterion, fragment):
    converged, reason, unmet = _converge(**override)
    assert not converged
    assert unmet == [criterion]
    assert reason.startswith("Not converged: ") and fragment in reason


def test_reason_names_every_unmet_criterion_in_order():
    _, reason, unmet = _converge(depth=1, agreement=0.1, completeness=0.1, unresolved=1, current_round=1)
    assert unmet == ["depth", "agreement", "evidence", "contradictions", "min_rounds"]
    assert reason.count(",") == 4


def test_thresholds_come_from_params():
    strict = PanelParams(convergence_threshold=0.9, depth_requirement=7, evidence_completeness=0.95, min_rounds=5)
    converged, _, unmet = scoring.check_convergence(
        current_round=4, depth=6, agreement=0.85, completeness=0.90, unresolved=0, voices=3, quorum=2, p=strict
    )
    assert not converged and unmet == ["depth", "agreement", "evidence", "min_rounds"]


@pytest.mark.parametrize(
    ("round_num", "quality", "depth", "completeness", "agreement", "expected"),
    [
        (1, 0.0, 0, 0.0, 0.0, "clarification"),
        (2, 0.7, 0, 0.0, 0.0, "assumption"),
        (2, 0.69, 0, 0.0, 0.0, "clarification"),
        (3, 1.0, 3, 1.0, 1.0, "assumption"),
        (3, 1.0, 4, 0.69, 1.0, "evidence"),
        (4, 1.0, 4, 0.70, 0.74, "perspective"),
        (5, 1.0, 9, 0.95, 0.75, "implication"),
    ],
)
def test_question_type_schedule(round_num, quality, depth, completeness, agreement, expected):
    assert scoring.select_question_type(round_num, quality, depth, completeness, agreement, P) == expected


def _item(strength, bias="low", n=None):
    return {"strength": strength, "bias_risk": bias, "sample_size": n}


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ([], ("unproven", "none")),
        ([_item("high")], ("validated", "high")),
        ([_item("medium", "low", 1000)], ("unproven", "medium")),  # 0.6 * 1.2 = 0.72
        ([_item("high", "medium")], ("validated", "high")),  # 0.85 sits on the high cut-off
        ([_item("high", "medium"), _item("high", "high")], ("validated", "medium")),  # mean 0.775
        ([_item("high", "high")], ("unproven", "medium")),  # 0.70
        ([_item("high", "high", 5000)], ("validated", "medium")),  # 0.84
        ([_item("low")], ("invalidated", "low")),  # 0.30 sits on the cut-off
        ([_item("low", "medium")], ("invalidated", "low")),  # 0.255
        ([_item("high"), _item("low")], ("unproven", "medium")),  # mean 0.65
    ],
)
def test_validation_scoring(items, expected):
    assert scoring.assess_validation(items, P) == expected


def test_validation_cutoffs_are_params():
    lenient = PanelParams(validated_cutoff=0.5, invalidated_cutoff=0.1)
    assert scoring.assess_validation([_item("medium")], lenient)[0] == "validated"
    assert scoring.assess_validation([_item("low")], lenient)[0] == "unproven"


def _a(aid, parents=(), layer=1, contradictions=(), resolved=False):
    return {
        "id": aid,
        "related_assumptions": list(parents),
        "depth_layer": layer,
        "contradictions": list(contradictions),
        "contradiction_resolved": resolved,
    }


def test_depth_is_max_of_layer_and_chain():
    chain = [_a("a"), _a("b", ["a"]), _a("c", ["b"]), _a("d", ["c"])]
    assert scoring.tree_depth(chain) == 4
    assert scoring.depth_layers(chain) == 4
    assert scoring.depth_layers([*chain, _a("x", layer=6)]) == 6
    assert scoring.depth_layers([]) == 0


def test_tree_depth_survives_cycles():
    assert scoring.tree_depth([_a("a", ["b"]), _a("b", ["a"])]) == 2


def test_evidence_completeness_and_contradictions():
    items = [_a("a"), _a("b", contradictions=["x"]), _a("c", contradictions=["y"], resolved=True)]
    assert scoring.evidence_completeness(items, {"a": [1], "b": []}) == pytest.approx(1 / 3)
    assert scoring.evidence_completeness([], {}) == 0.0
    assert [a["id"] for a in scoring.unresolved_contradictions(items)] == ["b"]


def test_one_voice_never_converges_even_with_every_other_criterion_met():
    converged, reason, unmet = _converge(voices=1, agreement=float("nan"))
    assert not converged and unmet == ["quorum", "agreement"]
    assert "Voices: 1/2" in reason
