"""A multirun is one MLflow parent run with every job nested under it, and a comparison table (the joblib
launcher against the sequential one: tests/slow/test_joblib_launcher.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from mlflow.tracking import MlflowClient

BIN = Path(sys.executable).parent / "dialectica"


def _sweep(
    tmp: Path, name: str, *extra: str, code: int = 0, thresholds: str = "0.6,0.95", seeds: str = "0,1"
) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [
            str(BIN),
            "-m",
            *extra,
            "graph=socratic_panel",
            f"graph.convergence_threshold={thresholds}",
            f"seed={seeds}",
            "episodes=12",
            "progress=false",
            "embeddings=false",
            f"hydra.sweep.dir={tmp / name}",
            f"tracking.uri=sqlite:///{tmp / 'ml.db'}",
        ],
        capture_output=True,
        text=True,
        cwd=tmp,
        timeout=600,
    )
    assert proc.returncode == code, proc.stderr[-3000:]
    return proc


def test_multirun_nests_jobs_under_one_parent_and_compares_configs(tmp_path):
    _sweep(tmp_path, "seq")
    client = MlflowClient(f"sqlite:///{tmp_path / 'ml.db'}")
    runs = client.search_runs([client.get_experiment_by_name("dialectica").experiment_id])
    parents = [r for r in runs if r.data.tags.get("sweep") == "true"]
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parents[0].info.run_id]
    assert len(children) == 4 and all(r.info.status == "FINISHED" for r in children)
    assert {a.path for a in client.list_artifacts(parents[0].info.run_id)} == {"comparison.csv", "comparison.md"}
    table = pd.read_csv(tmp_path / "seq" / "comparison.csv")
    assert sorted(table["config"]) == ["graph.convergence_threshold=0.6", "graph.convergence_threshold=0.95"]
    assert (table["episodes"] == 24).all() and (table["seeds"] == 2).all()
    assert (table["pass^2"] <= table["pass^1"] + 1e-12).all()
    best, other = table.iloc[0], table.iloc[1]
    assert best["convergence_rate"] == table["convergence_rate"].max() and not best["differs_from_best"]
    assert best["test"] == "best" and other["test"] == "mcnemar" and other["pairs"] == 24  # same seeds: paired
    assert other["diff_vs_best"] == pytest.approx(other["convergence_rate"] - best["convergence_rate"])
    assert other["diff_ci95_low"] <= other["diff_vs_best"] <= other["diff_ci95_high"]
    assert other["p_holm"] == pytest.approx(other["p_vs_best"])  # one comparison: Holm changes nothing
    assert parents[0].data.metrics["socratic_panel/best_convergence_rate"] == best["convergence_rate"]

    parent_file = (tmp_path / "seq" / "mlflow_parent.json").read_text()
    refused = _sweep(tmp_path, "seq", code=2, thresholds="0.6,0.8,0.95")  # again, with one value more
    lines = refused.stderr.strip().splitlines()  # without resume=true: refused before any job, MLflow left alone
    assert len(lines) == 1 and "already holds 4 jobs of an earlier sweep; add resume=true" in lines[0], refused.stderr
    assert sorted(p.name for p in (tmp_path / "seq").iterdir() if p.is_dir()) == ["0", "1", "2", "3"]
    assert (tmp_path / "seq" / "mlflow_parent.json").read_text() == parent_file
    assert len(client.search_runs([parents[0].info.experiment_id])) == len(runs)

    _sweep(tmp_path, "seq", "resume=true", thresholds="0.6,0.95,0.8")  # resumed with a value more: one parent
    parent = client.get_run(parents[0].info.run_id)
    assert parent.info.run_name == "sweep socratic_panel convergence_threshold=0.6,0.95,0.8 seed=0,1"
    assert "0.6,0.95,0.8" in parent.data.tags["overrides"] and parent.info.status == "FINISHED"
    children = client.search_runs([parent.info.experiment_id], f"tags.mlflow.parentRunId = '{parent.info.run_id}'")
    assert len(children) == 6
    _sweep(
        tmp_path, "seq", "resume=true", code=2, thresholds="0.6,0.95,0.8", seeds="0,1,2"
    )  # a job would refuse (another seed in its folder): refused before the sweep starts, the parent left as it was
    assert client.get_run(parent.info.run_id).info.status == "FINISHED"  # not RUNNING, nor FAILED by a refusal


def test_sweep_runs_read_well_in_mlflow(tmp_path):
    """Runs named by what differs, source tags, the classic experiment view, scenarios as dataset inputs, notes."""
    import subprocess as sp

    _sweep(tmp_path, "seq")
    client = MlflowClient(f"sqlite:///{tmp_path / 'ml.db'}")
    experiment = client.get_experiment_by_name("dialectica")
    assert experiment.tags["mlflow.experimentKind"] == "custom_model_development"
    runs = client.search_runs([experiment.experiment_id])
    (parent,) = [r for r in runs if r.data.tags.get("sweep") == "true"]
    assert parent.info.run_name == "sweep socratic_panel convergence_threshold=0.6,0.95 seed=0,1"
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    assert sorted(r.info.run_name for r in children) == [
        f"socratic_panel convergence_threshold={t} seed={s}" for t in ("0.6", "0.95") for s in (0, 1)
    ]
    head = sp.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=tmp_path).stdout.strip()
    for run in [parent, *children]:
        tags = run.data.tags
        assert tags["mlflow.source.name"] == "dialectica" and tags["mlflow.source.type"] == "LOCAL"
        assert tags.get("mlflow.source.git.commit") == (head or None)
        assert tags["mlflow.note.content"]
    child = children[0]
    assert "12 episodes over" in child.data.tags["mlflow.note.content"]
    (dataset,) = client.get_run(child.info.run_id).inputs.dataset_inputs
    assert dataset.dataset.name == "socratic_panel scenarios" and dataset.tags[0].value == "evaluation"
    digests = {client.get_run(r.info.run_id).inputs.dataset_inputs[0].dataset.digest for r in children}
    assert len(digests) == 1  # the same scenario files in every job
