"""MLflow runs end FINISHED, FAILED or KILLED, never RUNNING; logging is batched."""

from __future__ import annotations

import pytest
from mlflow.tracking import MlflowClient

from dialectica.sim.config.typed import TrackingConfig
from dialectica.sim.tracking.runs import NullRun, Tracker


def _tracker(tmp_path) -> tuple[Tracker, MlflowClient]:
    uri = f"sqlite:///{tmp_path / 'store' / 'ml.db'}"
    return Tracker(TrackingConfig(True, uri, "test")), MlflowClient(uri)


def test_exception_ends_run_failed(tmp_path):
    tracker, client = _tracker(tmp_path)
    with pytest.raises(RuntimeError), tracker.run("boom", {"graph": "x"}) as log:
        run_id = log.run_id
        raise RuntimeError("episode driver crashed")
    assert client.get_run(run_id).info.status == "FAILED"


def test_interrupt_ends_run_killed(tmp_path):
    tracker, client = _tracker(tmp_path)
    with pytest.raises(KeyboardInterrupt), tracker.run("stop", {}) as log:
        run_id = log.run_id
        raise KeyboardInterrupt
    assert client.get_run(run_id).info.status == "KILLED"


def test_batched_metrics_params_and_steps(tmp_path, monkeypatch):
    tracker, client = _tracker(tmp_path)
    with tracker.run("ok", {"graph": "x"}) as log:
        calls = []
        original = log.client.log_batch
        monkeypatch.setattr(log.client, "log_batch", lambda *a, **k: calls.append(k) or original(*a, **k))
        log.params({f"p{i}": i for i in range(150)} | {"nested.key": "v"})
        log.metrics({f"m{i}": float(i) for i in range(250)} | {"skipped": float("nan")})
        log.metric_steps([{"a": 0.1}, {"a": 0.5}, {"a": 0.9}], "by_round")
        run_id = log.run_id
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED"
    assert len(calls) == 2 + 1 + 1  # 151 params in batches of 100, 250 metrics in one batch, steps in one
    assert run.data.params["p149"] == "149" and run.data.metrics["m249"] == 249.0
    assert "skipped" not in run.data.metrics
    assert [(m.step, m.value) for m in client.get_metric_history(run_id, "by_round/a")] == [(1, 0.1), (2, 0.5), (3, 0.9)]
    assert run.data.tags["git_commit"]


def test_disabled_tracking_touches_nothing(tmp_path):
    tracker = Tracker(TrackingConfig(False, f"sqlite:///{tmp_path / 'ml.db'}", "test"))
    with tracker.run("off", {}) as log:
        assert isinstance(log, NullRun) and log.run_id is None
    assert not any(tmp_path.iterdir())


def test_a_run_a_budget_stopped_ends_killed_and_says_so_and_its_resumption_finishes(tmp_path):
    import dataclasses

    from dialectica.sim.config import load
    from dialectica.sim.engine import run

    uri = f"sqlite:///{tmp_path / 'ml.db'}"
    base = ["graph=interview", "embeddings=false", "view.enabled=false", "progress=false", "episodes=4"]
    cfg = load([*base, f"tracking.uri={uri}", "budget.episodes=2"], out_dir=tmp_path / "run")
    run(cfg, echo=lambda _: None)
    unlimited = dataclasses.replace(cfg, resume=True, budget=dataclasses.replace(cfg.budget, episodes=None))
    run(unlimited, echo=lambda _: None)
    runs = sorted(MlflowClient(uri).search_runs(["0", "1"]), key=lambda r: r.info.start_time)
    assert [(r.info.status, r.data.metrics["episodes"]) for r in runs] == [("KILLED", 2), ("FINISHED", 4)]
    assert runs[0].data.tags["stopped_by"] == "budget.episodes" and "stopped_by" not in runs[1].data.tags
    assert runs[0].data.tags["mlflow.note.content"].startswith("**Stopped by budget.episodes after 2 of 4 episodes**")

    # read back for analysis: each configuration and seed once, the run holding the most episodes
    import dialectica

    tracked = [*base, f"tracking.uri={uri}"]
    shorter = load([*tracked, "episodes=3", "progress=true"], out_dir=tmp_path / "shorter")  # its first 3 again
    run(shorter, echo=lambda _: None)
    run(load([*tracked, "graph.budget=3"], out_dir=tmp_path / "other"), echo=lambda _: None)
    as_float = dialectica.load_config([*tracked, "episodes=2"], out_dir=tmp_path / "float", values={"graph.budget": 3.0})
    run(as_float, echo=lambda _: None)  # budget 3.0 where "other" said 3: one configuration, the longer run kept
    rows = dialectica.load_runs(uri)
    assert sorted(zip(rows["params.graph.budget"], rows["metrics.episodes"], strict=True)) == [("10", 4), ("3", 4)]
    assert set(rows["run_id"]) >= {runs[1].info.run_id}
    assert len(dialectica.load_runs(uri, graph="interview")) == 2


def test_load_runs_refuses_a_missing_store_experiment_or_graph_and_creates_nothing(tmp_path):
    import dialectica

    missing = tmp_path / "nope.db"
    with pytest.raises(dialectica.ConfigError, match=r"no MLflow store at .*nope\.db"):
        dialectica.load_runs(f"sqlite:///{missing}")
    assert not missing.exists()
    uri = f"sqlite:///{tmp_path / 'ml.db'}"
    MlflowClient(uri).create_experiment("mine")
    with pytest.raises(dialectica.ConfigError, match=r"experiment='dialectika' is not in .*valid choices: .*mine"):
        dialectica.load_runs(uri, experiment="dialectika")
    with pytest.raises(dialectica.ConfigError, match=r"graph='interviw' has no finished run .*none yet"):
        dialectica.load_runs(uri, experiment="mine", graph="interviw")
    assert dialectica.load_runs(str(tmp_path / "ml.db"), experiment="mine").empty  # a file path reads as sqlite:///


def test_a_runs_objective_is_a_metric_of_each_graphs_mlflow_run(tmp_path):
    from dialectica.sim.config import load
    from dialectica.sim.engine import run

    uri = f"sqlite:///{tmp_path / 'ml.db'}"
    given = ["graph=interview", "embeddings=false", "view.enabled=false", "progress=false", "episodes=3"]
    objective = "+objective={metric:convergence_rate,floor_metric:rounds_mean,floor:100,penalty:0.01}"
    summary = run(load([*given, f"tracking.uri={uri}", objective], out_dir=tmp_path / "run"), echo=lambda _: None)
    (logged,) = MlflowClient(uri).search_runs(["0", "1"])
    assert logged.data.metrics["objective"] == pytest.approx(summary.objective)
    assert summary.objective < logged.data.metrics["convergence_rate"]  # the floor's penalty, not the rate alone
    assert summary.values["graphs"]["interview"]["objective"] == summary.objective  # one graph: its own is the run's
