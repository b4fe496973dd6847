"""``dialectica graph=package.module:attr``: a graph used as it is, from the command line; a broken plugin beside it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GRAPH = """
from dataclasses import dataclass
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime

@dataclass
class Desk:
    patience: int = 2

def clerk(state: MessagesState, runtime: Runtime[Desk]):
    asked = sum(m.type == "human" for m in state["messages"])
    text = "Done, here is your ticket." if asked > runtime.context.patience else "Please wait."
    return {"messages": [AIMessage(text)]}

builder = StateGraph(MessagesState, context_schema=Desk)
builder.add_node("clerk", clerk)
builder.add_edge(START, "clerk")
builder.add_edge("clerk", END)
graph = builder.compile()

def visitor(messages, scenario, rng):
    if messages and "ticket" in messages[-1].content:
        return None
    return "Still waiting?" if rng.random() < scenario["keen"] else None

def served(messages, scenario):
    return any("ticket" in m.content for m in messages if m.type == "ai")
"""
SCENARIOS = "- name: keen\n  keen: 0.9\n- name: idle\n  keen: 0.4\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "desk.py").write_text(GRAPH)
    (tmp_path / "scenarios.yaml").write_text(SCENARIOS)
    return tmp_path


def _dialectica(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dialectica", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        check=False,
    )


COMMON = (
    "graph.scenarios=scenarios.yaml",
    "graph.user=desk:visitor",
    "graph.judge=desk:served",
    "episodes=10",
    "tracking=none",
    "progress=false",
)


def test_a_module_graph_runs_and_sweeps_over_its_context_field(project: Path):
    proc = _dialectica(project, "graph=desk:graph", *COMMON, "hydra.run.dir=run")
    assert proc.returncode == 0, proc.stderr
    entry = json.loads((project / "run" / "summary.json").read_text())["graphs"]["desk.graph"]
    assert entry["metrics"]["episodes"] == 10 and 0 < entry["metrics"]["convergence_rate"] < 1
    endings = {k.split("/", 1)[1] for k in entry["metrics"] if k.startswith("termination/")}
    assert endings == {"converged", "user_stopped", "max_turns", "graph_ended", "error"}  # its own, no other graph's
    assert "depth_mean" not in proc.stdout.splitlines()[-4]  # the run table: no column of the built-in graphs'
    proc = _dialectica(project, "-m", "graph=desk.py:graph", *COMMON, "graph.patience=1,3", "hydra.sweep.dir=sweep")
    assert proc.returncode == 0, proc.stderr
    rates = [
        json.loads((project / "sweep" / str(i) / "summary.json").read_text())["graphs"]["desk.graph"]["metrics"][
            "convergence_rate"
        ]
        for i in (0, 1)
    ]
    assert rates[0] > rates[1]  # a more patient clerk serves fewer visitors before they leave


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("graph=desk:nothing", *COMMON), "desk:nothing: module desk has no attribute 'nothing'"),
        (("graph=desk:grahp", *COMMON), "module desk has no attribute 'grahp' (did you mean desk:graph?)"),
        (("graph=nowhere:graph", *COMMON), "ModuleNotFoundError: No module named 'nowhere'; it is not on the import path"),
        (("graph=desk:graph", *COMMON[1:]), "graph.scenarios is missing"),
        (("graph=desk:graph", *COMMON, "graph.patience=soon"), "graph.patience must be an integer, got 'soon'"),
        (("graph=desk:graph", *COMMON, "graph.judge=llm"), "scenario 'keen' has no 'rubric' for the LLM judge"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(project: Path, args: tuple[str, ...], message: str):
    proc = _dialectica(project, *args, "hydra.run.dir=bad")
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (project / "bad").exists()


def test_a_plugin_that_fails_to_import_affects_only_its_own_runs(project: Path):
    site = project / "site"
    dist = site / "broken_graph-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-graph\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[dialectica.graphs]\nbroken = broken_graph:SPEC\n")
    (site / "broken_graph.py").write_text("import a_dependency_nobody_installed\n")
    env = {"PYTHONPATH": str(site)}
    listing = _dialectica(project, "list", env=env)
    assert (
        listing.returncode == 0 and "broken  (failed to load: plugin graph 'broken' (package broken-graph" in listing.stdout
    )
    ok = _dialectica(project, "graph=desk:graph", *COMMON, "hydra.run.dir=ok", env=env)
    assert ok.returncode == 0, ok.stderr
    every = _dialectica(
        project,
        "episodes=1",
        "embeddings=false",
        "tracking=none",
        "progress=false",
        "view.enabled=false",
        "hydra.run.dir=all",
        env=env,
    )
    assert every.returncode == 0 and "warning: plugin graph 'broken'" in every.stderr, every.stderr
    assert sorted(json.loads((project / "all" / "summary.json").read_text())["graphs"]) == [
        "committee",
        "interview",
        "maieutic",
        "socratic_panel",
        "tribunal",
    ]
    own = _dialectica(project, "graph=broken", "tracking=none", "hydra.run.dir=own", env=env)
    assert own.returncode == 2 and not (project / "own").exists()
    assert own.stderr.strip() == (
        "dialectica: error: plugin graph 'broken' (package broken-graph, entry point "
        "broken_graph:SPEC) failed to import: ModuleNotFoundError: No module named "
        "'a_dependency_nobody_installed'; fix or uninstall that package"
    )


def _records(run: Path) -> dict[int, dict]:
    return {r["episode"]: r for r in map(json.loads, (run / "episodes.jsonl").read_text().splitlines())}


def test_a_graph_used_as_it_is_forks_after_a_turn_under_another_context_knob(project: Path):
    proc = _dialectica(project, "graph=desk:graph", *COMMON, "graph.patience=3", "hydra.run.dir=orig")
    assert proc.returncode == 0, proc.stderr
    same = _dialectica(project, "replay", "orig", "from_turn=1", "out=same")
    assert same.returncode == 0, same.stderr
    original, again = _records(project / "orig"), _records(project / "same")
    strip = ("timings", "fork")
    assert {i: {k: v for k, v in r.items() if k not in strip} for i, r in again.items()} == {
        i: {k: v for k, v in r.items() if k not in strip} for i, r in original.items()
    }
    fork = _dialectica(project, "replay", "orig", "from_turn=1", "graph.patience=1", "out=fork")
    assert fork.returncode == 0, fork.stderr
    forked = _records(project / "fork")
    for i, record in forked.items():
        first = [t for t in original[i]["transcript"] if t["round"] <= 1]
        assert [t for t in record["transcript"] if t["round"] <= 1] == first  # the first turn is the original's
        assert record["fork"] == {"run": str((project / "orig").resolve()), "turn": 1}  # read from any folder
    report = json.loads((project / "fork" / "replay.json").read_text())["graphs"]["desk.graph"]
    assert not report["prefix_differs"] and report["changed"]  # the clerk now serves at the second turn
    assert all(forked[c["episode"]]["converged"] and not original[c["episode"]]["converged"] for c in report["changed"])
    # kept checkpoints: the same fork goes on from each dialogue's recorded state after its first turn, alike
    kept = _dialectica(project, "graph=desk:graph", *COMMON, "graph.patience=3", "checkpoints=true", "hydra.run.dir=kept")
    assert kept.returncode == 0, kept.stderr
    restored = _dialectica(project, "replay", "kept", "from_turn=1", "graph.patience=1", "out=kept-fork")
    assert restored.returncode == 0, restored.stderr
    again = _records(project / "kept-fork")
    assert all(
        again[i]["fork"].get("restored")
        for i, r in original.items()
        if max(t["round"] for t in r["transcript"] or [{"round": 0}]) > 1
    )
    assert {i: {k: v for k, v in r.items() if k not in strip} for i, r in again.items()} == {
        i: {k: v for k, v in r.items() if k not in strip} for i, r in forked.items()
    }


def test_a_graph_given_as_a_path_keeps_its_path_in_records_logs_and_replays(project: Path):
    (project / "bots").mkdir()
    (project / "desk.py").rename(project / "bots" / "desk.py")
    common = ("graph.scenarios=scenarios.yaml", "graph.user=bots/desk.py:visitor", "graph.judge=bots/desk.py:served")
    common += ("episodes=4", "tracking=none", "progress=false")
    proc = _dialectica(project, "graph=bots/desk.py:graph", *common, "hydra.run.dir=run")
    assert proc.returncode == 0, proc.stderr
    assert "graph=bots/desk.py:graph" in json.loads((project / "run" / "summary.json").read_text())["overrides"]
    proc = _dialectica(project, "replay", "run", "from_turn=1", "out=again")
    assert proc.returncode == 0, proc.stderr
    assert (project / "again" / "replay.json").exists()
    proc = _dialectica(project, "-m", "graph=bots/desk.py:graph", *common, "graph.patience=1,3", "hydra.sweep.dir=sweep")
    assert proc.returncode == 0, proc.stderr
    launches = [line for line in (proc.stdout + proc.stderr).splitlines() if "#0 :" in line or "#1 :" in line]
    assert len(launches) == 2 and all("graph=bots/desk.py:graph " in line for line in launches), launches
    assert ".." not in (project / "sweep" / "comparison.md").read_text()
    proc = _dialectica(project, "replay", "sweep/1", "from_turn=1", "out=again1")  # a sweep's job replays too
    assert proc.returncode == 0, proc.stderr


SCRIPT = """
import dialectica
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph


def reply(state):
    return {"messages": [AIMessage("ok")]}


builder = StateGraph(MessagesState)
builder.add_node(reply)
builder.add_edge(START, "reply")
shop = builder.compile()
ev = dialectica.evaluate(shop, scenarios=[{"name": "a", "turns": ["hi"]}], judge=lambda m, s: True, episodes=1,
                         tracking="none", progress=False, out_dir="run")
print(ev.name)
"""


def test_a_graph_defined_in_the_script_that_runs_is_named_after_the_script(tmp_path: Path):
    (tmp_path / "pricing_bot.py").write_text(SCRIPT)
    proc = subprocess.run([sys.executable, "pricing_bot.py"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "pricing_bot.shop"  # not "app", which every script would share
    assert (tmp_path / "run" / "pricing_bot.shop").is_dir()
