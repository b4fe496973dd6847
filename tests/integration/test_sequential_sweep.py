"""``dialectica sequential``: a sweep in rounds on shared seeds that stops once decided, whose runs are the first
episodes of the fixed design's, and says where each configuration was decided."""

from __future__ import annotations

import json

import pytest

from dialectica.sim.cli.main import dispatch
from dialectica.sim.cli.sequential import main
from dialectica.sim.config import load
from dialectica.sim.engine import run

QUIET = ["tracking=none", "embeddings=false", "view.enabled=false"]


def test_a_clear_grid_is_decided_early_on_the_fixed_designs_episodes(tmp_path, capsys):
    out = tmp_path / "seq"
    assert main(["graph=interview", "grid.budget=3,10", "max_episodes=60", "step=10", f"out={out}", *QUIET]) == 0
    values = json.loads((out / "sequential.json").read_text())
    assert values["chosen"] == "graph.budget=10" and values["decided"]
    assert values["episodes_fixed"] == 120 and values["episodes_used"] < 120
    by_config = {c["overrides"]: c for c in values["configurations"]}
    assert by_config["graph.budget=3"]["status"] == "dropped"
    assert by_config["graph.budget=3"]["decided_at"] == by_config["graph.budget=3"]["episodes"] < 60
    assert "decided at" in capsys.readouterr().out

    # each configuration's run holds the first episodes a fixed run of the same seed plays
    played = by_config["graph.budget=10"]["episodes"]
    fixed = run(load(["graph=interview", "graph.budget=10", f"episodes={played}", *QUIET], out_dir=tmp_path / "fixed"))
    strip = lambda r: {k: v for k, v in r.items() if k not in ("timings",)}  # noqa: E731
    lines = lambda p: [strip(json.loads(x)) for x in (p / "episodes.jsonl").read_text().splitlines()]  # noqa: E731
    assert lines(out / "1") == lines(tmp_path / "fixed")
    assert json.loads((out / "1" / "summary.json").read_text())["graphs"]["interview"]["metrics"][
        "convergence_rate"
    ] == pytest.approx(fixed.metrics("interview")["convergence_rate"])


def test_a_budget_bounds_the_whole_race_and_says_it_stopped_it(tmp_path, capsys):
    out = tmp_path / "seq"
    args = ["graph=interview", "grid.budget=3,4,6,10", "max_episodes=60", "step=5", "budget.episodes=30"]
    assert main([*args, f"out={out}", *QUIET]) == 0
    values = json.loads((out / "sequential.json").read_text())
    assert values["stopped_by"] == "budget.episodes" and values["decided"] is False
    assert 30 <= values["episodes_used"] < 30 + 4 * 5  # checked before each round: one round over at most
    assert values["chosen"] is not None  # by the point estimates
    assert "budget.episodes spent (point estimates)" in capsys.readouterr().out
    for c in values["configurations"]:  # each configuration's run holds what it played, logged once
        summary = json.loads((out / str(values["configurations"].index(c)) / "summary.json").read_text())
        assert summary["graphs"]["interview"]["metrics"]["episodes"] == c["episodes"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["grid.budget=3,10"], "graph= is required; valid choices: committee"),
        (["graph=interview", "grid.budget=3,10", "episodes=5"], "max_episodes"),
        (["graph=interview", "grid.budget=3,10", "rule=floor"], "floor=RATE"),
        (["graph=interview", "grid.budget=3"], "two values or more"),
        (["graph=interview", "grid.budget=3,10", "delta=2"], "delta=2 is invalid"),
        (["graph=interview", "grid.budget=3,10", "max_episodes=2000000"], "valid values: integers 10 (step)..1,000,000"),
        (["graph=interview", "grid.budget=3,10", "graph.nope=1"], "nope"),
        (["graph=interview", "grid.budget=3,10", "maxepisodes=8"], "unknown key maxepisodes (did you mean max_episodes?)"),
        (["graph=interview", "graph.budget=3,10"], "a grid's values go in grid.budget=3,10"),
    ],
)
def test_bad_input_is_one_line_before_any_episode(args, message, tmp_path, capsys):
    assert dispatch("sequential", [*args, f"out={tmp_path / 'never'}", *QUIET]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert not (tmp_path / "never").exists()


def test_plan_reads_a_pilot_of_two_runs_and_a_sweep_folder(tmp_path, capsys):
    for budget in (3, 10):
        run(load(["graph=interview", f"graph.budget={budget}", "episodes=20", *QUIET], out_dir=tmp_path / "s" / str(budget)))
    assert dispatch("plan", [str(tmp_path / "s" / "3"), str(tmp_path / "s" / "10"), "diff=0.1"]) == 0
    out = capsys.readouterr().out
    assert "to detect a difference of 0.1" in out and "| " + str(tmp_path / "s" / "3") in out
    assert dispatch("plan", [str(tmp_path / "s"), f"json={tmp_path / 'plan.json'}"]) == 0
    (row,) = json.loads((tmp_path / "plan.json").read_text())
    assert row["config"] == "graph.budget=3" and row["best"] == "graph.budget=10" and row["fixed"] > 0
    assert dispatch("plan", [str(tmp_path / "s" / "3")]) == 2  # one run: nothing to compare
    assert "is one run" in capsys.readouterr().err


def test_each_configurations_mlflow_run_is_named_by_it_under_one_parent(tmp_path, capsys):
    from mlflow.tracking import MlflowClient

    uri = f"sqlite:///{tmp_path / 'ml.db'}"
    args = ["graph=interview", "grid.budget=3,10", "max_episodes=10", "step=10", f"out={tmp_path / 'seq'}"]
    assert main([*args, f"tracking.uri={uri}", "embeddings=false", "view.enabled=false"]) == 0
    assert "mlflow:  mlflow ui --backend-store-uri" in capsys.readouterr().out
    client = MlflowClient(uri)
    runs = client.search_runs([client.get_experiment_by_name("dialectica").experiment_id])
    (parent,) = [r for r in runs if r.info.run_name == "sequential budget"]
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    assert sorted(r.info.run_name for r in children) == ["interview budget=10", "interview budget=3"]
    assert parent.info.status == "FINISHED"
    assert [a.path for a in client.list_artifacts(parent.info.run_id)] == ["sequential.json"]


def test_a_sweep_job_resumed_after_an_interruption_is_read_back_as_its_configuration(tmp_path):
    import dialectica

    for job, budget, extra in (("0", 3, []), ("1", 10, ["resume=true"])):
        run(load(["graph=interview", f"graph.budget={budget}", "episodes=4", *QUIET, *extra], out_dir=tmp_path / job))
    sweep = dialectica.load_sweep(tmp_path)
    assert sweep.swept == ["graph.budget"]  # resume=true says how job 1 ran, not what it measured
    assert list(sweep.configurations().cat.categories) == ["3", "10"]
    assert (sweep.episodes["episodes"] == 4).all()  # every key's column numeric, not '4'
    assert not {"tracking", "view.enabled", "resume"} & set(sweep.episodes.columns)  # how the jobs ran, unswept


def test_a_run_control_key_the_sweep_swept_stays_a_configuration(tmp_path):
    import dialectica

    for job, jobs in (("0", 1), ("1", 2)):
        run(load(["graph=interview", "episodes=2", f"max_concurrency={jobs}", *QUIET], out_dir=tmp_path / job))
    sweep = dialectica.load_sweep(tmp_path)
    assert sweep.swept == ["max_concurrency"] and "tracking" not in sweep.episodes.columns


def test_a_sweep_of_every_graph_keeps_each_episodes_own_graph(tmp_path):
    import dialectica

    for job, seed in (("0", 0), ("1", 1)):
        run(load(["graph=all", "episodes=1", f"seed={seed}", *QUIET], out_dir=tmp_path / job))
    sweep = dialectica.load_sweep(tmp_path)
    assert sweep.swept == ["run_seed"] and set(sweep.episodes["run_graph"]) == {"all"}
    assert set(sweep.episodes["graph"]) == {"committee", "interview", "maieutic", "socratic_panel", "tribunal"}


def test_a_tracked_races_parent_run_says_what_it_chose_and_spent(tmp_path):
    from mlflow.tracking import MlflowClient

    uri = f"sqlite:///{tmp_path / 'ml.db'}"
    args = ["graph=interview", "grid.budget=3,10", "max_episodes=40", "step=10", f"tracking.uri={uri}"]
    assert main([*args, f"out={tmp_path / 'seq'}", "embeddings=false", "view.enabled=false"]) == 0
    values = json.loads((tmp_path / "seq" / "sequential.json").read_text())
    parent = next(r for r in MlflowClient(uri).search_runs(["1"]) if r.info.run_name == "sequential budget")
    assert parent.info.status == "FINISHED" and parent.data.tags["chosen"] == values["chosen"]
    assert parent.data.tags["decided"] == str(values["decided"]).lower()
    assert parent.data.metrics["episodes_used"] == values["episodes_used"]
