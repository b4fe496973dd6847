"""The validity report's arithmetic: grids, rank agreement and its bootstrap over shared episodes."""

from __future__ import annotations

import numpy as np
import pytest

from dialectica.sim.analysis.validity import REFERENCE_PRESET, Agreement, grid_arguments, grid_points, llm_cast, summarise
from dialectica.sim.authoring.params import ConfigError


def _outcomes(rates: list[float], episodes: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([(rng.random(episodes) < r).astype(float) for r in rates])


def test_grid_points_cover_every_combination_in_order():
    points = grid_points({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(points) == 6 and points[0] == {"a": 1, "b": "x"} and points[-1] == {"a": 2, "b": "z"}


def test_a_cast_that_ranks_alike_agrees_and_one_that_reverses_disagrees():
    scripted = _outcomes([0.1, 0.4, 0.7, 0.95], 60, seed=1)
    alike = Agreement(scripted, _outcomes([0.05, 0.3, 0.6, 0.9], 60, seed=2))
    reversed_ = Agreement(scripted, _outcomes([0.9, 0.6, 0.3, 0.05], 60, seed=3))
    assert alike.point() == pytest.approx((1.0, 1.0))
    assert reversed_.point() == pytest.approx((-1.0, -1.0))
    low = alike.bootstrap(samples=300)["spearman"]["ci95_low"]
    high = reversed_.bootstrap(samples=300)["spearman"]["ci95_high"]
    assert low > 0 > high


def test_bootstrap_is_reproducible_and_wider_with_fewer_episodes():
    many = Agreement(_outcomes([0.2, 0.5, 0.8], 80, 4), _outcomes([0.3, 0.4, 0.9], 80, 5))
    few = Agreement(many.scripted[:, :8], many.llm[:, :8])
    assert many.bootstrap(samples=200, seed=9) == many.bootstrap(samples=200, seed=9)
    width = [b["kendall"]["ci95_high"] - b["kendall"]["ci95_low"] for b in (many.bootstrap(200), few.bootstrap(200))]
    assert width[0] < width[1]


def test_a_cast_whose_rates_are_all_equal_has_no_ranking():
    agreement = Agreement(_outcomes([0.2, 0.5, 0.8], 10, 6), np.zeros((3, 10)))
    report = summarise([{"t": 1}, {"t": 2}, {"t": 3}], agreement)
    assert np.isnan(report["spearman"]) and report["spearman_bootstrap"]["undefined_share"] == 1.0
    assert [r["llm_rate"] for r in report["configs"]] == [0.0, 0.0, 0.0]
    assert all(r["scripted_ci95_low"] <= r["scripted_rate"] <= r["scripted_ci95_high"] for r in report["configs"])
    # each cast is tested as calibrate tests it: its rate inside the LLM's interval (0.8 of 10 is not inside 0 of 10's)
    assert [r["scripted_inside_llm_ci"] for r in report["configs"]] == [
        r["llm_ci95_low"] <= r["scripted_rate"] <= r["llm_ci95_high"] for r in report["configs"]
    ]
    assert report["configs"][2]["scripted_inside_llm_ci"] is False and "llm_inside_scripted_ci" not in report["configs"][0]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["episodes=3"], "graph= is required; valid choices: committee"),
        (["graph=nope"], "unknown graph='nope'; valid choices: committee"),
        (["graph=comittee"], r"unknown graph='comittee' \(did you mean graph=committee\?\)"),
        (
            ["graph=committee", "grid.consensus_treshold=0.5"],
            r"unknown key grid.consensus_treshold \(did you mean grid.consensus_threshold\?\)",
        ),
        (["graph=interview", "budget"], "'budget' is not key=value; see `dialectica validity --help`"),
    ],
)
def test_bad_arguments_are_one_line_errors(argv, message):
    with pytest.raises(ConfigError, match=message):
        grid_arguments(argv)


def test_every_builtin_graph_declares_a_grid_and_a_grid_override_replaces_it():
    from dialectica.sim.config.discovery import builtin_names, load

    for name in builtin_names():
        graph, grid, _, _ = grid_arguments([f"graph={name}"])
        assert graph == name and grid and all(len(v) >= 3 for v in grid.values()), name
        assert set(grid) <= {f.name for f in __import__("dataclasses").fields(load(name).params)}
    assert grid_arguments(["graph=interview", "grid.budget=2,4", "seed=3"])[1:] == ({"budget": [2, 4]}, {}, ["seed=3"])


@pytest.mark.parametrize(
    ("given", "reference"),
    [
        ([], True),
        (["llm=llamacpp"], True),
        (["llm.max_tokens=64"], True),
        (["llm.preset=smollm2-135m"], False),
        (["llm.model_path=/models/x.gguf"], False),
        (["llm=openai", "llm.base_url=http://x"], False),
    ],
)
def test_the_llm_cast_runs_on_the_reference_model_unless_told_otherwise(given, reference):
    cast = llm_cast(given, participants=True)
    assert (f"llm.preset={REFERENCE_PRESET}" in cast) == reference
    assert cast[len(cast) - len(given) :] == given  # what was given comes last, so it wins
    assert sum(a.startswith("llm=") for a in cast) == 1
    assert "llm.system_roles=scripted" in cast
    assert "llm.system_roles=scripted" not in llm_cast(given, participants=False)


def test_a_graph_named_by_a_path_gets_a_folder_inside_results():
    from dialectica.sim.config.discovery import folder_name

    assert folder_name("committee") == "committee"
    assert "/" not in folder_name("/tmp/somewhere/src/haggle:SPEC")
    assert folder_name("mybot.graphs:build") == "mybot.graphs.build"


@pytest.mark.parametrize(
    ("arg", "refused"),
    [("graph.budget=3,10", True), ("graph.why_query_template='against, {thesis}'", False), ("graph.x=[1,2]", False)],
)
def test_only_a_graph_override_hydra_reads_as_a_sweep_is_sent_to_the_grid(arg, refused):
    if refused:
        with pytest.raises(ConfigError, match="a grid's values go in grid.budget=3,10"):
            grid_arguments(["graph=interview", arg])
    else:
        assert arg in grid_arguments(["graph=maieutic", arg])[3]
