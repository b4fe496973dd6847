"""An Optuna study of a few trials improves on its first trial, logs its best to the parent run,
and resumes by replaying its seeded trials from the finished jobs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import yaml
from mlflow.tracking import MlflowClient

BIN = Path(sys.executable).parent / "dialectica"


def _study(tmp: Path, *extra: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [
            str(BIN),
            "-m",
            "hparams_search=socratic_panel_optuna",
            "hydra.sweeper.n_trials=6",
            "episodes=24",
            "progress=false",
            "embeddings=false",
            f"hydra.sweep.dir={tmp / 'study'}",
            f"tracking.uri=sqlite:///{tmp / 'ml.db'}",
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def test_study_improves_on_its_first_trial_and_resumes(tmp_path):
    _study(tmp_path)
    study = tmp_path / "study"
    objectives = [json.loads((study / str(i) / "summary.json").read_text())["objective"] for i in range(6)]
    best = yaml.safe_load((study / "optimization_results.yaml").read_text())
    assert best["best_value"] == max(objectives) > objectives[0]

    client = MlflowClient(f"sqlite:///{tmp_path / 'ml.db'}")
    parent = next(r for r in client.search_runs(["1"]) if r.data.tags.get("sweep") == "true")
    assert parent.data.metrics["best_objective"] == best["best_value"]
    assert {f"best.{k}" for k in best["best_params"]} <= set(parent.data.params)
    artifacts = {a.path for a in client.list_artifacts(parent.info.run_id)}
    assert {"objective.png", "optimization_results.yaml", "comparison.csv"} <= artifacts
    assert parent.info.run_name.startswith("sweep socratic_panel_optuna")  # which study, by its name
    table = pd.read_csv(study / "comparison.csv")  # the study's best heads the table, as optimization_results says
    assert table.iloc[0]["objective"] == best["best_value"] and parent.data.params.keys() >= {
        "best." + k for k in best["best_params"]
    }
    trials = [r for r in client.search_runs(["1"]) if r.data.tags.get("sweep") != "true"]
    assert sorted(r.data.metrics["objective"] for r in trials) == sorted(objectives)  # each trial ranks in MLflow too

    replay = [str(BIN), "replay", str(study / "0"), "from_turn=1", "tracking=none", f"out={tmp_path / 'fork'}"]
    forked = subprocess.run(replay, capture_output=True, text=True, cwd=tmp_path)  # a trial is one run: it replays
    assert forked.returncode == 0 and (tmp_path / "fork" / "replay.json").is_file(), forked.stderr[-2000:]

    resumed = _study(tmp_path, "resume=true")
    assert resumed.stdout.count("already finished") == 6  # the seeded sampler replays the same six trials
    assert yaml.safe_load((study / "optimization_results.yaml").read_text()) == best
