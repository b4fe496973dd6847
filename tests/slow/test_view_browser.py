"""Episode pages in a real headless browser (Debian's chromium, driven by Playwright): every graph's pages from a
small real run load with no console errors and nothing fetched, show as many turns as their record has, and are
screenshotted; an episode that raised shows its traceback. ``DIALECTICA_VIEW_SHOTS=DIR`` keeps the screenshots."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dialectica.sim.config.discovery import builtin_names
from dialectica.sim.config.view import ViewOptions
from dialectica.sim.records import read
from dialectica.sim.view.write import write_graph_pages

GRAPHS = builtin_names()
# Without these, chromium waits on network services it cannot reach here.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Each graph's own section, and how many of its marks the record implies.
PANELS = {
    "committee": ("svg.argument-graph circle", lambda r: len(json.loads(r["artifacts"]["argument_graph.json"])["nodes"])),
    "interview": (
        "table.ascr tbody tr",
        lambda r: len(
            json.loads(r["artifacts"]["truth.json"])
            | json.loads(r["artifacts"]["ascr.json"])
            | {t["field"]: 1 for t in r["per_round"]}
        ),
    ),  # every field known, found or asked
    "maieutic": ("#graph-panel table tbody tr", lambda r: len(r["per_round"])),
    "socratic_panel": ("#graph-panel ul.tree > li", lambda r: 3),  # validated, invalidated, unproven
    "tribunal": (
        "#graph-panel svg.bars",
        lambda r: len({(b["layer"], b.get("round", 0)) for b in r["timings"]["branches"]}),
    ),
}


def chromium() -> str:
    path = os.environ.get("DIALECTICA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail("Debian's chromium is missing; the README's test command installs it (apt-get install -y chromium)")
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("browser")
    args = ["episodes=2", "tracking=none", "progress=false", "embeddings=false", f"hydra.run.dir={tmp / 'run'}"]
    proc = subprocess.run([sys.executable, "-m", "dialectica", *args], check=False, capture_output=True, text=True, cwd=tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tmp / "run"


@pytest.fixture(scope="module")
def base_url(run_dir):
    """The run's pages served by ``python -m dialectica.sim.view RUN --serve`` on a free loopback port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "dialectica.sim.view", str(run_dir), "--serve", "--port", "0"],
        cwd=run_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = ""
    while not line.startswith("serving "):
        line = proc.stdout.readline()
        assert line or proc.poll() is None, proc.stderr.read()
    yield line.split()[1].rsplit("/", 1)[0]
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("DIALECTICA_VIEW_SHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def visit(browser, url: str):
    """The loaded page, the console errors and uncaught exceptions it raised, and every URL it requested."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors, requests = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    response = page.goto(url)
    assert response is not None and response.ok, url
    return page, errors, requests


def _shoot(page, path: Path) -> None:
    page.screenshot(path=str(path))
    page.screenshot(path=str(path.with_name(path.stem + "_full.png")), full_page=True)
    assert path.stat().st_size > 20_000  # a blank viewport compresses to a few kB


@pytest.mark.parametrize("graph", GRAPHS)
def test_each_graph_page_loads_clean_and_shows_every_turn(graph, run_dir, base_url, browser, shots):
    records = {r["episode"]: r for r in read(run_dir / "episodes.jsonl", graph)}  # the run's one file, this graph's lines
    pages = sorted((run_dir / graph / "view").glob("episode_*.html"))
    topology = json.loads((run_dir / graph / "view" / "topology.json").read_text())
    assert len(pages) == len(records) == 2  # first 3 of 2 episodes
    selector, expected = PANELS[graph]
    for k, path in enumerate(pages):
        record = records[int(path.stem.split("_")[1])]
        url = f"{base_url}/{graph}/view/{path.name}"
        page, errors, requests = visit(browser, url)
        turns = len(record["transcript"])
        assert errors == [] and requests == [url]
        assert page.locator("article.turn").count() == turns > 0
        assert page.get_attribute("main#episode", "data-turns") == str(turns)
        assert page.locator(".count").inner_text() == f"{turns} turns" and page.locator(".count").is_visible()
        assert page.locator(".section-error").count() == 0
        assert page.locator(".badge").inner_text() == record["termination_reason"]
        assert page.locator("svg.topology g.node").count() == len(topology["nodes"])
        assert page.locator(selector).count() == expected(record)
        if k == 0:
            _shoot(page, shots / f"{graph}.png")
        page.close()


def test_an_episode_that_raised_shows_its_traceback(run_dir, browser, shots, tmp_path):
    def crash():
        raise RuntimeError("scripted participant crashed <mid-turn>")

    try:
        crash()
    except RuntimeError:
        import traceback

        tb = traceback.format_exc()
    record = next(read(run_dir / "episodes.jsonl", "interview"))
    record |= {"termination_reason": "error", "error": tb, "metrics": {}, "per_round": [], "transcript": [], "artifacts": {}}
    files = write_graph_pages([record], tmp_path / "view", ViewOptions(first=0, errors=1))
    page, errors, _ = visit(browser, (tmp_path / "view" / "episode_0.html").as_uri())
    assert errors == [] and [f.name for f in files] == ["index.html", "episode_0.html"]
    traceback_text = page.locator("#error pre.traceback").inner_text()
    assert page.locator("#error").is_visible() and "Traceback (most recent call last)" in traceback_text
    assert "RuntimeError: scripted participant crashed <mid-turn>" in traceback_text
    assert page.locator(".badge").inner_text() == "error" and page.locator(".count").inner_text() == "0 turns"
    assert "RuntimeError: scripted participant crashed" in page.locator(".explanation").inner_text()
    _shoot(page, shots / "error.png")


def test_the_run_index_links_each_graph_index_which_links_its_pages(run_dir, base_url, browser):
    page, errors, _ = visit(browser, f"{base_url}/view.html")
    links = page.locator("a").evaluate_all("els => els.map(e => e.href)")
    assert errors == [] and len(links) == len(GRAPHS)
    for link in links:
        index, errors, _ = visit(browser, link)
        graph = index.get_attribute("main#index", "data-graph")
        pages = list((run_dir / graph / "view").glob("episode_*.html"))
        episodes = sum(1 for _ in read(run_dir / "episodes.jsonl", graph, keep=False))
        assert errors == [] and index.locator("tbody tr").count() == episodes  # every episode, linked when it has a page
        assert index.locator("tbody td:first-child a").count() == len(pages)


@pytest.mark.parametrize("scripts", [True, False])
def test_the_index_filters_with_or_without_scripts_and_sorts_with_them(run_dir, browser, tmp_path, scripts):
    """MLflow's artifact viewer may block scripts: the filters are CSS; sorting needs the inline script."""
    out = tmp_path / "view"
    records = list(read(run_dir / "episodes.jsonl", "interview", keep=False))
    files = write_graph_pages(records, out, ViewOptions(first=1, metric="ascr_recall", errors=0))
    context = browser.new_context(java_script_enabled=scripts)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(files[0].as_uri())

    def shown() -> list[int]:
        return [int(r.get_attribute("data-episode")) for r in page.locator("#episodes tbody tr").all() if r.is_visible()]

    assert shown() == sorted(r["episode"] for r in records) and errors == []
    target = records[-1]
    page.select_option("#f-scenario", index=sorted({r["scenario"] for r in records}).index(target["scenario"]) + 1)
    assert shown() == sorted(r["episode"] for r in records if r["scenario"] == target["scenario"])
    page.select_option("#f-scenario", index=0)
    page.select_option(
        "#f-reason", index=sorted({r["termination_reason"] for r in records}).index(target["termination_reason"]) + 1
    )
    assert shown() == sorted(r["episode"] for r in records if r["termination_reason"] == target["termination_reason"])
    page.select_option("#f-reason", index=0)
    assert page.locator("#episodes th button").count() == (page.locator("#episodes th").count() if scripts else 0)
    if scripts:
        page.locator("#episodes th button", has_text="ascr_recall").click()
        by_recall = sorted(records, key=lambda r: (r["metrics"]["ascr_recall"], r["episode"]))
        assert shown() == [r["episode"] for r in by_recall]
        page.locator("#episodes th button", has_text="episode").click()
        assert shown() == sorted(r["episode"] for r in records)
        page.locator("#episodes th button", has_text="episode").click()  # again: the other way
        assert shown() == sorted((r["episode"] for r in records), reverse=True)
    assert errors == []
    context.close()
