"""A sweep's jobs and configurations in numeric order, not text order (12 after 6 and 8)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dialectica.sim.tracking.sweep import job_files, markdown
from dialectica.sim.tracking.sweep_data import Sweep


def test_jobs_come_in_hydras_numbering(tmp_path):
    for job in ("0", "1", "2", "10", "11"):
        (tmp_path / job).mkdir()
        (tmp_path / job / "summary.json").write_text("{}")
    assert [p.parent.name for p in job_files(tmp_path, "summary.json")] == ["0", "1", "2", "10", "11"]


def test_configurations_follow_the_swept_values():
    episodes = pd.DataFrame(
        {
            "graph.max_rounds": [12, 6, 8, 12, 6],
            "graph.threshold": [0.5, 0.5, 0.5, 0.25, 0.25],
            "run_seed": [0, 0, 0, 1, 1],
        }
    )
    sweep = Sweep(Path("."), None, None, ["graph.max_rounds", "graph.threshold", "run_seed"], episodes, pd.DataFrame())
    config = sweep.configurations()
    assert list(config.cat.categories) == ["6 0.25", "6 0.5", "8 0.5", "12 0.25", "12 0.5"]
    assert list(config) == ["12 0.5", "6 0.5", "8 0.5", "12 0.25", "6 0.25"]  # each episode keeps its own
    table = episodes.assign(config=config, converged=1).pivot_table(
        index="run_seed", columns="config", values="converged", observed=True
    )
    assert list(table.columns) == list(config.cat.categories)  # a heatmap's columns in the values' order
    unswept = Sweep(Path("."), None, None, ["run_seed"], episodes, pd.DataFrame())
    assert set(unswept.configurations()) == {"(defaults)"}


def test_the_comparison_reads_as_counts_rates_and_blanks():
    nan = float("nan")
    table = pd.DataFrame(
        {
            "config": ["a=30", "a=7"],
            "episodes": [40.0, 40.0],
            "converged": [38.0, 20.0],
            "convergence_rate": [0.95, 0.5],
            "objective": [nan, nan],
            "pairs": [nan, 40.0],
            "p_vs_best": [nan, 1e-6],
        }
    )
    text = markdown(table)
    assert "objective" not in text  # a column no row has is left out
    assert text.splitlines()[2] == "| a=30 | 40 | 38 | 0.950 |  |  |"  # counts as counts, the best has no difference
    assert text.splitlines()[3] == "| a=7 | 40 | 20 | 0.500 | 40 | <0.001 |"


def test_a_run_given_for_a_sweep_and_a_sweep_for_a_run_say_which_to_use(tmp_path):
    import pytest

    from dialectica.sim.records import load_episodes
    from dialectica.sim.tracking.sweep_data import SweepError, load_sweep

    (tmp_path / "sweep" / "0").mkdir(parents=True)
    (tmp_path / "sweep" / "0" / "episodes.jsonl").write_text("")
    with pytest.raises(SweepError, match=rf"0 is a run, not a sweep; its sweep is {tmp_path / 'sweep'}; read a run"):
        load_sweep(tmp_path / "sweep" / "0")
    with pytest.raises(FileNotFoundError, match="it holds a sweep's jobs: read it with dialectica.load_sweep"):
        load_episodes(tmp_path / "sweep")


def test_decided_at_counts_pairs_in_the_order_episodes_are_played(tmp_path):
    """Episode seeds derive from a hash, so seed order is not play order: the column must match a sequential run."""
    import json

    import numpy as np

    from dialectica.metrics.sequential import first_decided
    from dialectica.sim.tracking.sweep import comparison

    seeds = [1000 - 7 * i for i in range(60)]  # episode i's seed, here falling with i
    good = [True] * 60
    bad = [i < 30 for i in range(60)]  # the two differ only on the episodes played last
    for job, (value, outcomes) in enumerate([("30", good), ("7", bad)]):
        folder = tmp_path / str(job)
        folder.mkdir()
        (folder / "summary.json").write_text(json.dumps({"overrides": [f"graph.window={value}"], "seed": 0}))
        records = [
            {"graph": "bot", "episode": i, "seed": seeds[i], "scenario": "s", "termination_reason": "converged" if ok
             else "user_stopped", "converged": ok, "metrics": {}}
            for i, ok in enumerate(outcomes)
        ]  # fmt: skip
        (folder / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    table = comparison(tmp_path)
    row = table[table["config"] == "graph.window=7"].iloc[0]
    in_play_order = first_decided(np.array(bad), np.array(good), 0.05)
    in_seed_order = first_decided(*(np.array([o[i] for i in np.argsort(seeds)]) for o in (bad, good)), 0.05)
    assert in_play_order is not None and in_play_order != in_seed_order  # the two orders differ here
    assert row["decided_at"] == in_play_order


def test_decided_at_tests_at_the_races_level_over_every_pair(tmp_path):
    """Three configurations: a race (rule=best) tests 3 pairs at 0.05 / 3, and so does the sweep's column."""
    import json

    import numpy as np

    from dialectica.metrics.sequential import first_decided
    from dialectica.sim.tracking.sweep import comparison

    runs = {"30": [True] * 60, "7": [i % 4 != 0 for i in range(60)], "3": [i % 2 == 0 for i in range(60)]}
    for job, (value, outcomes) in enumerate(runs.items()):
        folder = tmp_path / str(job)
        folder.mkdir()
        (folder / "summary.json").write_text(json.dumps({"overrides": [f"graph.window={value}"], "seed": 0}))
        records = [
            {"graph": "bot", "episode": i, "seed": i, "scenario": "s", "termination_reason": "converged" if ok
             else "user_stopped", "converged": ok, "metrics": {}}
            for i, ok in enumerate(outcomes)
        ]  # fmt: skip
        (folder / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    row = comparison(tmp_path).set_index("config").loc["graph.window=3"]
    at_race_level = first_decided(np.array(runs["3"]), np.array(runs["30"]), 0.05 / 3)
    assert at_race_level is not None and at_race_level != first_decided(np.array(runs["3"]), np.array(runs["30"]), 0.05 / 2)
    assert row["decided_at"] == at_race_level


def test_a_swept_run_control_key_is_a_configuration_and_a_resumed_jobs_resume_is_not():
    from dialectica.sim.tracking.sweep import config_keys

    throughput = [["max_concurrency=1", "seed=0"], ["max_concurrency=4", "seed=0"]]
    assert config_keys(throughput, swept=["max_concurrency"]) == ["max_concurrency=1", "max_concurrency=4"]
    resumed = [["graph.x=1"], ["graph.x=1", "resume=true"], ["++graph.x=2", "resume=true"]]
    assert config_keys(resumed) == ["graph.x=1", "graph.x=1", "graph.x=2"]
    budget = [["graph.x=1", "budget.seconds=600"], ["graph.x=1", "budget.seconds=null", "resume=true"]]
    assert config_keys(budget, swept=["graph.x"]) == ["(defaults)", "(defaults)"]  # one configuration, resumed


def test_a_studys_best_is_its_highest_objective_not_its_highest_rate(tmp_path):
    """An Optuna trial that converges most but breaks the objective's floor is not the table's best."""
    import json

    from dialectica.sim.tracking.sweep import comparison

    jobs = {"0.7": (0.9, -0.25), "0.9": (0.6, 0.25), "0.8": (0.7, float("nan"))}  # rate, objective (nan: not scored)
    for job, (value, (rate, objective)) in enumerate(jobs.items()):
        folder = tmp_path / str(job)
        folder.mkdir()
        summary = {"overrides": [f"graph.t={value}"], "seed": 0} | (
            {} if objective != objective else {"objective": objective}
        )
        (folder / "summary.json").write_text(json.dumps(summary))
        records = [
            {"graph": "bot", "episode": i, "seed": i, "scenario": "s", "termination_reason": "converged" if i < rate * 20
             else "user_stopped", "converged": i < rate * 20, "metrics": {}}
            for i in range(20)
        ]  # fmt: skip
        (folder / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    table = comparison(tmp_path)
    assert list(table["config"]) == ["graph.t=0.9", "graph.t=0.7", "graph.t=0.8"]  # by objective, unscored last
    assert table.iloc[0]["test"] == "best" and table.iloc[1]["diff_vs_best"] > 0  # 0.7 converges more than the best
    (tmp_path / "multirun.yaml").write_text("hydra:\n  sweeper:\n    direction: minimize\n")
    assert list(comparison(tmp_path)["config"]) == ["graph.t=0.7", "graph.t=0.9", "graph.t=0.8"]  # a study minimising
