"""The name registry, the state reducers, and typed graph parameters."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.sim.authoring.params import ConfigError, build_params
from dialectica.sim.authoring.reducers import merge_lists_by_key, upsert_by_id


def test_upsert_by_id_appends_new_replaces_known_and_keeps_order():
    left = [{"id": "a", "v": 1}, {"id": "b", "v": 1}, {"id": "c", "v": 1}]
    right = [{"id": "d", "v": 2}, {"id": "b", "v": 2}]
    before = copy.deepcopy((left, right))
    merged = upsert_by_id(left, right)
    assert merged == [{"id": "a", "v": 1}, {"id": "b", "v": 2}, {"id": "c", "v": 1}, {"id": "d", "v": 2}]
    assert (left, right) == before
    assert merged is not left


def test_upsert_by_id_with_empty_sides():
    items = [{"id": "a"}]
    assert upsert_by_id([], items) == items and upsert_by_id(items, []) == items
    assert upsert_by_id([], []) == []


def test_merge_lists_by_key_extends_shared_keys_and_adds_new_ones_without_mutation():
    left = {"a": [1, 2], "b": [3]}
    right = {"b": [4], "c": [5, 6]}
    before = copy.deepcopy((left, right))
    merged = merge_lists_by_key(left, right)
    assert merged == {"a": [1, 2], "b": [3, 4], "c": [5, 6]}
    assert list(merged) == ["a", "b", "c"]
    assert (left, right) == before
    merged["a"].append(99)
    merged["c"].append(99)
    assert (left, right) == before


# --- build_params -----------------------------------------------------------------------------------


def _build(**values):
    return build_params(PanelParams, values, "graph")


def test_defaults_and_valid_values_are_typed():
    assert _build() == PanelParams()
    params = _build(max_rounds=7.0, convergence_threshold=1, strength_weights={"high": 2, "medium": 1, "low": 0})
    assert params.max_rounds == 7 and type(params.max_rounds) is int
    assert params.convergence_threshold == 1.0 and type(params.convergence_threshold) is float
    assert all(type(v) is float for v in params.strength_weights.values())


def test_dict_defaults_are_not_shared_between_instances():
    assert PanelParams().strength_weights is not PanelParams().strength_weights


def test_unknown_key_lists_the_valid_keys():
    with pytest.raises(ConfigError) as info:
        _build(bogus=1)
    names = ", ".join(sorted(f.name for f in dataclasses.fields(PanelParams)))
    assert str(info.value) == f"unknown key graph.bogus; valid keys: {names}"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"max_rounds": "five"}, "graph.max_rounds must be an integer, got 'five'"),
        ({"max_rounds": 2.5}, "graph.max_rounds must be an integer, got 2.5"),
        ({"max_rounds": True}, "graph.max_rounds must be an integer, got True"),
        ({"convergence_threshold": False}, "graph.convergence_threshold must be a number, got False"),
        ({"convergence_threshold": "0.8"}, "graph.convergence_threshold must be a number, got '0.8'"),
        ({"convergence_threshold": 1.5}, "graph.convergence_threshold=1.5 is out of range; valid range: [0.0, 1.0]"),
        ({"max_rounds": 0}, "graph.max_rounds=0 is out of range; valid range: [1, 50]"),
        ({"sample_size_min": -1}, "graph.sample_size_min=-1 is out of range; valid range: >= 0"),
        ({"strength_weights": 3}, "graph.strength_weights must be a mapping, got 3"),
        ({"strength_weights": {"high": 1, "medium": "x", "low": 0.1}}, "graph.strength_weights.medium must be a number"),
        ({"bias_discounts": {"high": 1, "medium": 0.5, "low": 11}}, "graph.bias_discounts.low=11.0 is out of range"),
        ({"strength_weights": {"high": 1, "medium": True, "low": 0.1}}, "graph.strength_weights.medium must be a number"),
    ],
)
def test_bad_values_name_the_key(values, message):
    with pytest.raises(ConfigError) as info:
        _build(**values)
    assert str(info.value).startswith(message)


def test_unbounded_high_accepts_large_values():
    assert _build(sample_size_min=10**9).sample_size_min == 10**9


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ({"strength_weights": {"high": 1.0, "medium": 0.5}}, "graph.strength_weights must have exactly the keys"),
        ({"bias_discounts": {"high": 1, "medium": 1, "low": 1, "none": 1}}, "graph.bias_discounts must have exactly"),
        ({"invalidated_cutoff": 0.75, "validated_cutoff": 0.75}, "graph.invalidated_cutoff=0.75 must be below"),
        ({"invalidated_cutoff": 0.9}, "must be below graph.validated_cutoff=0.75"),
        ({"min_rounds": 6, "max_rounds": 5}, "graph.min_rounds=6 must not exceed graph.max_rounds=5"),
    ],
)
def test_cross_field_checks(values, fragment):
    with pytest.raises(ConfigError, match=fragment.replace(".", r"\.")):
        _build(**values)


def test_cross_field_boundaries_that_are_allowed():
    params = _build(min_rounds=4, max_rounds=4, invalidated_cutoff=0.74, validated_cutoff=0.75)
    assert (params.min_rounds, params.max_rounds) == (4, 4)


@pytest.mark.parametrize(
    "values",
    [
        {"convergence_threshold": float("nan")},
        {"strength_weights": {"high": float("nan"), "medium": 0.6, "low": 0.3}},
        {"max_rounds": float("inf")},
        {"max_rounds": float("nan")},
    ],
    ids=["float-nan", "dict-nan", "int-inf", "int-nan"],
)
def test_non_finite_numbers_are_config_errors(values):
    with pytest.raises(ConfigError, match=f"graph.{next(iter(values))}"):
        _build(**values)
