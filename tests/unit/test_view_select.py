"""Episode selection for the viewer, and the typed ``view:`` options."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.config.loader import load as load_config
from dialectica.sim.config.view import ViewOptions
from dialectica.sim.view.select import select_episodes


def _records(values, errors=()):
    return [
        {
            "episode": i,
            "metrics": {} if v is None else {"score": v},
            "termination_reason": "error" if i in errors else "x",
            **({"error": "Traceback ..."} if i in errors else {}),
        }
        for i, v in enumerate(values)
    ]


def _picked(selected):
    return {s.record["episode"]: s.why for s in selected}


def test_first_best_and_worst_each_once_with_every_reason():
    picked = _picked(select_episodes(_records([0.5, 0.9, 0.1, 0.7]), first=2, metric="score", errors=1))
    assert picked == {0: ("first",), 1: ("first", "best by score"), 2: ("worst by score",)}


def test_minus_prefix_means_lower_is_better_and_ties_go_to_the_earlier_episode():
    picked = _picked(select_episodes(_records([0.3, 0.1, 0.1, 0.9, 0.9]), first=0, metric="-score", errors=0))
    assert picked == {1: ("best by score (lowest)",), 3: ("worst by score (highest)",)}


def test_episodes_without_the_metric_are_not_ranked_and_errors_are_added():
    records = _records([None, 0.2, None, 0.4], errors=(0, 2))
    picked = _picked(select_episodes(records, first=0, metric="score", errors=1))
    assert picked == {0: ("error",), 1: ("worst by score",), 3: ("best by score",)}
    assert _picked(select_episodes(_records([None, None]), first=0, metric="score", errors=0)) == {}


def test_first_larger_than_the_run_takes_every_episode_once():
    assert [s.record["episode"] for s in select_episodes(_records([1, 2]), first=5, metric=None, errors=0)] == [0, 1]


@pytest.mark.parametrize(
    "values, key",
    [
        ({"first": -1}, "view.first"),
        ({"errors": True}, "view.errors"),
        ({"metric": "-"}, "view.metric"),
        ({"pages": 3}, "view.pages"),
    ],
)
def test_bad_view_options_name_the_key(values, key):
    with pytest.raises(ConfigError, match=key):
        ViewOptions.from_mapping(values)


def test_config_defaults_equal_the_typed_defaults_and_overrides_reach_the_run_config(tmp_path):
    cfg = load_config(["tracking=none"], out_dir=tmp_path, cwd=Path.cwd())
    assert cfg.view == ViewOptions()
    overrides = ["tracking=none", "view.first=1", "view.metric=-rounds", "view.enabled=false"]
    cfg = load_config(overrides, out_dir=tmp_path, cwd=Path.cwd())
    assert cfg.view == ViewOptions(enabled=False, first=1, metric="-rounds", errors=1)


def test_every_picks_each_episode_once_keeping_the_reasons_of_those_otherwise_picked():
    picked = _picked(select_episodes(_records([0.5, 0.9, 0.1, 0.7]), first=1, metric="score", errors=0, every=True))
    assert picked == {0: ("first",), 1: ("best by score",), 2: ("worst by score",), 3: ()}


def test_view_pages_takes_selected_or_all_and_names_both_when_wrong(tmp_path):
    assert ViewOptions().pages == "selected" and ViewOptions.from_mapping({"pages": "all"}).pages == "all"
    with pytest.raises(ConfigError, match=r"^view.pages='every' is invalid; valid values: selected .*, all "):
        ViewOptions.from_mapping({"pages": "every"})
    cfg = load_config(["tracking=none", "view.pages=all", "episodes=500"], out_dir=tmp_path, cwd=Path.cwd())
    assert cfg.view.pages == "all"
    with pytest.raises(ConfigError, match="at most 500 a graph; episodes=501: use view.pages=selected"):
        load_config(["tracking=none", "view.pages=all", "episodes=501"], out_dir=tmp_path, cwd=Path.cwd())
    cfg = load_config(
        ["tracking=none", "view.enabled=false", "view.pages=all", "episodes=501"], out_dir=tmp_path, cwd=Path.cwd()
    )
    assert not cfg.view.enabled  # no pages at all: nothing to refuse
