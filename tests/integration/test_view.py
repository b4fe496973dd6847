"""Episode pages end to end: written by a run and logged to MLflow, rebuilt by ``python -m dialectica.sim.view`` from a run
directory or an MLflow run id, served on loopback, and bad input refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest


def _python(*args: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], check=False, capture_output=True, text=True, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def interview_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("view")
    proc = _python(
        "-m",
        "dialectica",
        "graph=interview",
        "episodes=5",
        "seed=2",
        "progress=false",
        "embeddings=false",
        "view.first=2",
        f"hydra.run.dir={tmp / 'run'}",
        f"tracking.uri=sqlite:///{tmp / 'ml.db'}",
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_id = json.loads((tmp / "run" / "summary.json").read_text())["graphs"]["interview"]["mlflow_run_id"]
    return tmp, run_id


def _pages(folder: Path) -> set[str]:
    return {p.name for p in folder.glob("episode_*.html")}


def test_a_run_writes_pages_and_logs_them_under_view(interview_run):
    from mlflow.tracking import MlflowClient

    tmp, run_id = interview_run
    view = tmp / "run" / "interview" / "view"
    records = [json.loads(line) for line in (tmp / "run" / "episodes.jsonl").read_text().splitlines()]
    recall = [r["metrics"]["ascr_recall"] for r in records]
    expected = {0, 1, recall.index(max(recall)), recall.index(min(recall))}  # first 2, best and worst by ascr_recall
    assert _pages(view) == {f"episode_{i}.html" for i in expected}
    index = (view / "index.html").read_text()
    assert f'data-pages="{len(expected)}"' in index and "best by ascr_recall" in index
    logged = {a.path for a in MlflowClient(f"sqlite:///{tmp / 'ml.db'}").list_artifacts(run_id, "view")}
    assert logged == {f"view/{name}" for name in (*_pages(view), "index.html", "topology.json")}
    page = (view / "episode_0.html").read_text()
    assert f'data-turns="{len(records[0]["transcript"])}"' in page and 'class="topology"' in page


def test_pages_rebuilt_from_the_mlflow_run_id(interview_run):
    tmp, run_id = interview_run
    proc = _python(
        "-m",
        "dialectica.sim.view",
        run_id,
        "--tracking-uri",
        f"sqlite:///{tmp / 'ml.db'}",
        "--out",
        str(tmp / "fromml"),
        "--first",
        "1",
        "--metric=-wasted_turns",
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr
    pages = _pages(tmp / "fromml" / "interview")
    assert "episode_0.html" in pages and 1 <= len(pages) <= 3
    assert "best by wasted_turns" in (tmp / "fromml" / "interview" / "index.html").read_text()
    assert 'href="interview/index.html"' in (tmp / "fromml" / "view.html").read_text()


def test_pages_rebuilt_from_a_run_directory_with_other_choices(interview_run):
    tmp, _ = interview_run
    proc = _python(
        "-m",
        "dialectica.sim.view",
        str(tmp / "run"),
        "--first",
        "0",
        "--metric",
        "rounds",
        "--out",
        str(tmp / "again"),
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr
    pages = _pages(tmp / "again" / "interview")
    assert 1 <= len(pages) <= 2 and f"interview: {len(pages)} episode pages" in proc.stdout
    assert "<td>first" not in (tmp / "again" / "interview" / "index.html").read_text()


RUN_ID = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    "target, words",
    [
        ("no/such/dir", "no/such/dir is neither a run directory nor an MLflow run id"),
        (RUN_ID, f"{RUN_ID} not found"),
        (".", "no episodes.jsonl in"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(interview_run, target, words):
    tmp, _ = interview_run
    proc = _python("-m", "dialectica.sim.view", target, "--tracking-uri", f"sqlite:///{tmp / 'ml.db'}", cwd=tmp)
    assert proc.returncode == 2 and words in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and proc.stderr.startswith("dialectica: error:")


def test_serve_answers_on_loopback(interview_run):
    tmp, _ = interview_run
    proc = subprocess.Popen(
        [sys.executable, "-m", "dialectica.sim.view", str(tmp / "run"), "--serve", "--port", "0"],
        cwd=tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = ""
        while not line.startswith("serving "):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
        url = line.split()[1]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/view.html")
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200 and b'href="interview/view/index.html"' in response.read()
        with urllib.request.urlopen(url.replace("view.html", "interview/view/episode_0.html"), timeout=10) as response:
            assert b'data-graph="interview"' in response.read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
