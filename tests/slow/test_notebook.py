"""The analysis notebook runs headless against a small run it makes first, and every cell succeeds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # the notebook lives in the source tree, not the package
BIN = Path(sys.executable).parent / "dialectica"


def _run(tmp: Path, *args: str) -> None:
    proc = subprocess.run(
        [str(BIN), *args, f"tracking.uri=sqlite:///{tmp / 'ml.db'}", "progress=false"],
        capture_output=True,
        text=True,
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_analysis_notebook_executes_against_a_fresh_store(tmp_path, monkeypatch):
    _run(
        tmp_path,
        "-m",
        "graph=socratic_panel",
        "graph.convergence_threshold=0.6,0.9",
        "episodes=4",
        f"hydra.sweep.dir={tmp_path / 'sweep'}",
    )
    _run(tmp_path, "graph=maieutic", "episodes=3", f"hydra.run.dir={tmp_path / 'maieutic'}")
    monkeypatch.setenv("DIALECTICA_TRACKING_URI", f"sqlite:///{tmp_path / 'ml.db'}")
    notebook = nbformat.read(PROJECT_ROOT / "notebooks" / "analysis.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=None, kernel_name="python3", resources={"metadata": {"path": str(PROJECT_ROOT / "notebooks")}}
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if o.output_type == "display_data" and "image/png" in o.data]
    assert len(images) >= 4  # two sweep points make one sweep plot, plus agreement, critic loops, timings
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "3 finished runs" in text and "1 sweep plot(s)" in text


@pytest.mark.parametrize("store", ["none", "empty"])
def test_analysis_notebook_says_so_on_a_missing_or_empty_store(store, tmp_path, monkeypatch):
    from mlflow.tracking import MlflowClient

    uri = f"sqlite:///{tmp_path / 'ml.db'}"
    if store == "empty":
        MlflowClient(uri).create_experiment("dialectica")  # the store and its experiment, no run yet
    monkeypatch.setenv("DIALECTICA_TRACKING_URI", uri)
    notebook = nbformat.read(PROJECT_ROOT / "notebooks" / "analysis.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=None, kernel_name="python3", resources={"metadata": {"path": str(PROJECT_ROOT / "notebooks")}}
    ).execute()
    text = "".join(o.get("text", "") for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs)
    assert "0 finished runs" in text and "no node timings" in text
    assert ("nothing to read: tracking_uri=" in text and "no MLflow store at" in text) is (store == "none")


def test_report_of_one_sweep_in_a_store_of_two_shows_only_that_sweep(tmp_path):
    from mlflow.tracking import MlflowClient

    _run(
        tmp_path,
        "-m",
        "graph=socratic_panel",
        "graph.convergence_threshold=0.6,0.9",
        "episodes=4",
        "embeddings=false",
        f"hydra.sweep.dir={tmp_path / 'panel'}",
    )
    _run(tmp_path, "-m", "graph=interview", "graph.budget=3,6", "episodes=3", f"hydra.sweep.dir={tmp_path / 'interview'}")
    uri = f"sqlite:///{tmp_path / 'ml.db'}"
    parent = json.loads((tmp_path / "panel" / "mlflow_parent.json").read_text())["run_id"]
    proc = subprocess.run([str(BIN), "report", parent, "--tracking-uri", uri], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr  # the kernel runs on local sockets: no unencrypted-TCP warning
    html = (tmp_path / "panel" / "report.html").read_text()
    assert "2 jobs, 8 episodes, graphs socratic_panel; swept: graph.convergence_threshold" in html
    assert "interview" not in html and "graph.budget" not in html
    assert html.count("data:image/png;base64") >= 2  # the threshold plot and the scenario heatmap, inlined
    assert 'src="http' not in html and "mcnemar" in html
    client = MlflowClient(uri)
    assert "report.html" in {a.path for a in client.list_artifacts(parent)}
    other = json.loads((tmp_path / "interview" / "mlflow_parent.json").read_text())["run_id"]
    assert "report.html" not in {a.path for a in client.list_artifacts(other)}

    (tmp_path / "empty").mkdir()
    for target in ("empty", "no-such-sweep"):
        proc = subprocess.run([str(BIN), "report", str(tmp_path / target)], capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        (line,) = proc.stderr.strip().splitlines()
        assert line.startswith("dialectica: error:") and target in line
