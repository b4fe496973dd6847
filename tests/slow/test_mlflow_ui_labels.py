"""A person labels an episode in MLflow's own UI, in a real browser (Debian's chromium, driven by Playwright), and
``dialectica agreement`` reads the label back: the trace link on the episode's page opens the trace, the
person adds human feedback ``human/converged`` with a reason, and the agreement report counts it and lists the
episode with that reason."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from mlflow.tracing.client import TracingClient

from tests.slow.test_view_browser import FLAGS, chromium

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support_bot"
NAME = "support_bot.graph.graph"
ENV = {**os.environ, "PYTHONPATH": str(EXAMPLE / "src")}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("ui")
    uri = f"sqlite:///{tmp / 'mlflow.db'}"
    args = [
        "graph=support_bot.graph:graph",
        f"graph.scenarios={EXAMPLE / 'scenarios.yaml'}",
        "graph.user=support_bot.evaluation:customer",
        "graph.judge=support_bot.evaluation:refunded",
        "episodes=3",
        "traces=all",
        "progress=false",
        f"tracking.uri={uri}",
        f"hydra.run.dir={tmp / 'run'}",
    ]
    proc = subprocess.run([sys.executable, "-m", "dialectica", *args], capture_output=True, text=True, cwd=tmp, env=ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tmp / "run", uri


@pytest.fixture(scope="module")
def ui(run):
    """MLflow's server over the run's store on a free loopback port, in a process group of its own."""
    _, uri = run
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "server", "--backend-store-uri", uri, "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(240):  # up to 60 s for a cold start on a busy machine
        try:
            with urllib.request.urlopen(f"{base}/health", timeout=2):
                break
        except OSError:
            assert server.poll() is None, server.stderr.read().decode()[-2000:] if server.stderr else ""
            time.sleep(0.25)
    yield base
    os.killpg(server.pid, signal.SIGTERM)
    server.wait(timeout=30)


def test_a_label_added_in_mlflows_ui_is_read_back_by_agreement(run, ui):
    from playwright.sync_api import sync_playwright

    run_dir, uri = run
    records = {r["episode"]: r for r in map(json.loads, (run_dir / "episodes.jsonl").read_text().splitlines())}
    episode = 1
    page_html = (run_dir / NAME / "view" / f"episode_{episode}.html").read_text()
    link = page_html.split('" class="trace"')[0].rsplit('href="', 1)[1]  # the episode page's link to its trace
    trace_id = link.rsplit("=", 1)[1]
    said = records[episode]["converged"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(link.replace("http://127.0.0.1:5000", ui))  # the page links to `mlflow ui`'s default address
        page.locator("button", has_text="Assess").first.click()
        page.locator("button", has_text="Add feedback").first.click()
        page.get_by_text("Human feedback", exact=True).click()
        name = page.get_by_placeholder("Enter a feedback name")
        name.click()
        name.fill("human/converged")
        page.get_by_text("human/converged", exact=True).last.click()
        page.get_by_text(str(not said), exact=True).click()  # the person disagrees with the verdict
        page.locator("textarea:not([placeholder])").first.fill("read it: the customer left without what they asked")
        page.locator("button", has_text="Create").click()
        client = TracingClient(uri)
        for _ in range(120):
            if any(a.name == "human/converged" for a in client.get_trace(trace_id).info.assessments):
                break
            page.wait_for_timeout(250)
        browser.close()
    label = next(a for a in client.get_trace(trace_id).info.assessments if a.name == "human/converged")
    assert label.source.source_type == "HUMAN" and label.value is (not said)

    proc = subprocess.run(
        [sys.executable, "-m", "dialectica", "agreement", str(run_dir)], capture_output=True, text=True, env=ENV
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((run_dir / NAME / "agreement.json").read_text())
    assert result["labels"] == 1 and result["accuracy"] == 0.0
    (wrong,) = result["verdicts"]["converged"]["disagreements"]
    assert wrong["episode"] == episode and wrong["label"] is (not said)
    assert wrong["notes"] == [f"{label.source.source_id}: read it: the customer left without what they asked"]
