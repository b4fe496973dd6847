"""Counterfactual replay (``dialectica replay RUN from_turn=T ...``): a fork with the original's config
reproduces its records at any turn, for every graph; a fork under another threshold keeps each episode's
first turns and reports the pairs; bad input is one line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

BIN = Path(sys.executable).parent / "dialectica"
COMMON = ["progress=false", "embeddings=false", "view.enabled=false"]


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, cwd=cwd)


def _records(run: Path) -> dict[tuple[str, int], dict]:
    rows = (json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines())
    return {(r["graph"], r["episode"]): r for r in rows}


def _same(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in ("timings", "fork")}


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("replay")
    proc = _run(tmp, "episodes=3", "seed=2", "tracking=none", *COMMON, f"hydra.run.dir={tmp / 'orig'}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tmp / "orig"


@pytest.mark.parametrize("turn", [0, 2])
def test_a_fork_under_the_original_config_reproduces_every_graphs_records(original, turn):
    out = original.parent / f"same-t{turn}"
    proc = _run(original.parent, "replay", str(original), f"from_turn={turn}", f"out={out}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, after = _records(original), _records(out)
    assert {g for g, _ in before} == {"committee", "interview", "maieutic", "socratic_panel", "tribunal"}
    assert {k: _same(r) for k, r in after.items()} == {k: _same(r) for k, r in before.items()}
    assert all(r["fork"] == {"run": str(original), "turn": turn} for r in after.values())
    report = json.loads((out / "replay.json").read_text())
    assert all(g["diff"] == 0 and not g["changed"] and not g["prefix_differs"] for g in report["graphs"].values())
    assert "| socratic_panel | 3 |" in proc.stdout
    longest = max(r["metrics"]["rounds"] for (g, _), r in before.items() if g == "tribunal")
    assert (f"no episode of tribunal in {original} played more than" in proc.stderr) is (turn > longest)


@pytest.mark.parametrize(
    ("graph", "override"),
    [
        ("socratic_panel", "graph.convergence_threshold=0.95"),
        ("committee", "graph.consensus_threshold=0.95"),
        ("interview", "graph.question_cost=2.0"),
        ("tribunal", "graph.dispersion_threshold=0.5"),
        ("maieutic", "graph.frustration_threshold=1.0"),
    ],
)
def test_every_graph_keeps_its_first_turn_when_forked_under_another_threshold(original, graph, override):
    out = original.parent / f"fork-{graph}"
    proc = _run(original.parent, "replay", str(original), "from_turn=1", f"graph={graph}", override, f"out={out}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, after = _records(original), _records(out)
    assert {g for g, _ in after} == {graph}
    for key, record in after.items():
        assert [t for t in record["transcript"] if t["round"] <= 1] == [
            t for t in before[key]["transcript"] if t["round"] <= 1
        ], key
    assert not json.loads((out / "replay.json").read_text())["graphs"][graph]["prefix_differs"]


def test_a_fork_under_another_threshold_keeps_the_first_turns_and_pairs_the_endings(tmp_path):
    db = f"sqlite:///{tmp_path / 'ml.db'}"
    first = _run(
        tmp_path,
        "graph=maieutic",
        "episodes=16",
        "seed=1",
        f"tracking.uri={db}",
        *COMMON,
        f"hydra.run.dir={tmp_path / 'orig'}",
    )
    assert first.returncode == 0, first.stderr[-3000:]
    proc = _run(
        tmp_path, "replay", str(tmp_path / "orig"), "from_turn=2", "graph.min_exchanges=8", "view.enabled=true",
        "view.first=0", f"out={tmp_path / 'fork'}",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, after = _records(tmp_path / "orig"), _records(tmp_path / "fork")
    for key, record in after.items():  # the first two learner turns and Sophia's answers are the original's
        kept = [t for t in before[key]["transcript"] if t["round"] <= 2]
        assert [t for t in record["transcript"] if t["round"] <= 2] == kept, key
        assert record["seed"] == before[key]["seed"] and record["scenario"] == before[key]["scenario"]
    changed = [k for k in after if after[k]["termination_reason"] != before[k]["termination_reason"]]
    assert changed, "a deeper examination changed no ending"
    pages = {int(p.stem.split("_")[1]) for p in (tmp_path / "fork" / "maieutic" / "view").glob("episode_*.html")}
    assert {k[1] for k in changed} <= pages  # each changed ending gets its page, without asking
    index = tmp_path / "fork" / "maieutic" / "view" / "index.html"
    assert "ending changed" in index.read_text()
    first_index = index.read_text()
    rebuilt = _run(tmp_path, "view", str(tmp_path / "fork"))  # the pages written again, as the replay gave them
    assert rebuilt.returncode == 0 and index.read_text().count("ending changed") == first_index.count("ending changed")
    graph = json.loads((tmp_path / "fork" / "replay.json").read_text())["graphs"]["maieutic"]
    assert graph["pairs"] == 16 and {c["episode"] for c in graph["changed"]} == {k[1] for k in changed}
    assert graph["diff"] == pytest.approx(graph["replay_rate"] - graph["original_rate"])
    assert graph["diff_ci95_low"] <= graph["diff"] <= graph["diff_ci95_high"] and 0 <= graph["p_mcnemar"] <= 1
    from dialectica.sim.view.page import render_page

    page = render_page(after[changed[0]])  # the fork's page: where it forks, both endings, both continuations
    assert "Fork: both continuations" in page and "after turn 2" in page
    assert (
        f"The original ended {before[changed[0]]['termination_reason']}; this replay ended "
        f"{after[changed[0]]['termination_reason']}." in page
    )
    client = MlflowClient(db)
    runs = client.search_runs([client.get_experiment_by_name("dialectica").experiment_id])
    (forked,) = [r for r in runs if "replay_of" in r.data.tags]
    original_id = json.loads((tmp_path / "orig" / "summary.json").read_text())["graphs"]["maieutic"]["mlflow_run_id"]
    assert forked.data.tags["replay_of_run_id"] == original_id and forked.data.tags["replay_from_turn"] == "2"
    assert (
        forked.data.params["replay.from_turn"] == "2" and "replay.from_turn" not in client.get_run(original_id).data.params
    )


def test_a_fork_under_a_smaller_budget_stops_each_interview_at_it(original):
    out = original.parent / "budget"
    proc = _run(original.parent, "replay", str(original), "from_turn=2", "graph=interview", "graph.budget=3", f"out={out}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, after = _records(original), _records(out)
    assert any(r["metrics"]["rounds"] > 3 for (g, _), r in before.items() if g == "interview")  # some went past it
    for key, record in after.items():
        metrics = record["metrics"]
        assert metrics["rounds"] <= 3 and metrics["budget_used"] == metrics["rounds"], key  # the new budget holds
        if before[key]["metrics"]["rounds"] > 3:
            assert record["termination_reason"] == "budget_exhausted", key
    # a budget of exactly the fork's turn: the interview decides in a node of its own after the turn, under the replay
    at = original.parent / "budget-at-fork"
    proc = _run(original.parent, "replay", str(original), "from_turn=2", "graph=interview", "graph.budget=2", f"out={at}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert all(r["metrics"]["rounds"] == min(2, before[k]["metrics"]["rounds"]) for k, r in _records(at).items())


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["replay"], ("usage: dialectica replay RUN",)),
        (["replay", "nowhere"], ("nowhere: no such run directory",)),
        (["replay", "{orig}", "from_turn=-1"], ("replay.from_turn=-1 is invalid", "integers >= 0")),
        (["replay", "{orig}", "graph=interview", "replay.nope=1"], ("unknown key replay.nope",)),
        (["replay", "{orig}", "seed=5"], ("seed=: a replay keeps each episode's seed",)),
        (["replay", "{orig}/interview", "graph.budget=4"], ("interview is a graph's folder of the run", "give the run")),
        (["replay", "{orig}", "form_turn=3"], ("unknown key form_turn (did you mean from_turn?)",)),
        (["replay", "{orig}", "from_turn=500"], ("replay.from_turn=500: no episode in", "valid: from_turn 0-")),
    ],
)
def test_bad_replays_are_one_line(original, tmp_path, args, words):
    out = [f"out={tmp_path / 'x'}"] if len(args) > 1 else []
    proc = _run(tmp_path, *[a.format(orig=original) for a in args], *out)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert all(w in lines[0] for w in words), lines[0]
    assert not (tmp_path / "x").exists()


def test_the_replay_arguments_read_either_spelling_of_the_turn_and_name_the_folder_by_the_change(tmp_path):
    from dialectica.sim.engine.replay import arguments

    run = tmp_path / "base"
    run.mkdir()
    (run / "summary.json").write_text(json.dumps({"overrides": ["graph=interview", "episodes=3"]}))
    args = arguments([str(run), "replay.from_turn=2", "graph.budget=6"])
    assert args[-2:] == ["replay.from_turn=2", f"hydra.run.dir={run}-replay-t2-budget_6"]
    assert "graph.budget=6" in args and "graph=interview" in args
    assert arguments([str(run), "from_turn=1"])[-1] == f"hydra.run.dir={run}-replay-t1"  # nothing changed
    again = arguments([str(run), "from_turn=2", "graph.budget=6", "resume=true"])  # the folder it was stopped in
    assert again[-1] == f"hydra.run.dir={run}-replay-t2-budget_6"


def test_a_replay_never_writes_into_an_existing_run(original, tmp_path):
    files = {p.name: p.read_bytes() for p in original.iterdir() if p.is_file()}
    for out in (original, tmp_path / "other"):
        if out != original:
            out.mkdir()
            (out / "episodes.jsonl").write_text("{}\n")  # another run's
        proc = _run(tmp_path, "replay", str(original), "from_turn=1", f"out={out}")
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert f"out={out}" in lines[0] and "never writes" in lines[0] and "another out=DIR" in lines[0]
    assert {p.name: p.read_bytes() for p in original.iterdir() if p.is_file()} == files  # nothing touched
    assert (tmp_path / "other" / "episodes.jsonl").read_text() == "{}\n"


def test_replay_from_python_is_the_command(original, monkeypatch):
    import dialectica

    monkeypatch.chdir(original.parent)
    report = dialectica.replay(
        original, from_turn=1, overrides=["graph=interview", "graph.question_cost=2.0"], out_dir=original.parent / "py"
    )
    assert report["replay"] == str((original.parent / "py").resolve()) and set(report["graphs"]) == {"interview"}
    assert report["graphs"]["interview"]["pairs"] == 3
    cli = original.parent / "cli-interview"  # the same fork through the command line
    proc = _run(
        original.parent, "replay", str(original), "from_turn=1", "graph=interview", "graph.question_cost=2.0", f"out={cli}"
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert {k: _same(r) for k, r in _records(original.parent / "py").items()} == {
        k: _same(r) for k, r in _records(cli).items()
    }


def _prefix(record: dict, turn: int) -> list[dict]:
    return [t for t in record["transcript"] if isinstance(t.get("round"), int) and t["round"] <= turn]


def test_kept_checkpoints_are_each_episodes_langgraph_history_and_change_no_record(tmp_path):
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    from dialectica.graphs.socratic_panel import SPEC

    common = ["graph=socratic_panel", "episodes=3", "seed=4", "tracking=none", *COMMON]
    kept = _run(tmp_path, *common, "checkpoints=[1]", f"hydra.run.dir={tmp_path / 'kept'}")
    plain = _run(tmp_path, *common, f"hydra.run.dir={tmp_path / 'plain'}")
    assert kept.returncode == 0 and plain.returncode == 0, kept.stderr[-3000:] + plain.stderr[-3000:]
    records = _records(tmp_path / "kept")
    assert {k: _same(r) for k, r in records.items()} == {k: _same(r) for k, r in _records(tmp_path / "plain").items()}
    assert not (tmp_path / "plain" / "checkpoints.sqlite").exists()
    with sqlite3.connect(tmp_path / "kept" / "checkpoints.sqlite", check_same_thread=False) as conn:
        assert conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall() == [("socratic_panel/1",)]
        graph = SPEC.compiled().copy(update={"checkpointer": SqliteSaver(conn)})
        history = list(graph.get_state_history({"configurable": {"thread_id": "socratic_panel/1"}}))
    final = history[0].values  # newest first: the episode's last state, its rounds as the record counts them
    rounds = {t["round"] for t in records[("socratic_panel", 1)]["transcript"] if isinstance(t.get("round"), int)}
    assert len(final["round_log"]) == max(rounds) and not history[0].next
    marks = [s.metadata["turn"] for s in reversed(history) if "turn" in s.metadata]  # where each round completed
    assert marks == list(range(max(rounds) + 1))


@pytest.mark.parametrize("graph", ["socratic_panel", "maieutic"])
def test_a_fork_of_a_run_that_kept_its_checkpoints_goes_on_from_the_recorded_state(tmp_path, graph):
    """An override that acts before the fork (participants' failures) changes the prefix played again; the fork
    of a run that kept its checkpoints still starts from the original's state after turn 2, the plain run's not."""
    common = [f"graph={graph}", "episodes=4", "seed=3", "tracking=none", *COMMON]
    if graph == "socratic_panel":  # its experts' failures are retried at once: the backoff is timing, not outcome
        common.append("graph.retry_backoff_s=0")
    for name, extra in (("kept", ["checkpoints=true"]), ("plain", [])):
        proc = _run(tmp_path, *common, *extra, f"hydra.run.dir={tmp_path / name}")
        assert proc.returncode == 0, proc.stderr[-3000:]
        fork = _run(tmp_path, "replay", str(tmp_path / name), "from_turn=2", "participants.failure_rate=0.4")
        assert fork.returncode == 0, fork.stderr[-3000:]
    kept_dir, plain_dir = (tmp_path / f"{n}-replay-t2-failure_rate_0.4" for n in ("kept", "plain"))  # named by the change
    before, kept, plain = _records(tmp_path / "kept"), _records(kept_dir), _records(plain_dir)
    reached = [k for k, r in before.items() if max(t["round"] for t in _prefix(r, 99)) > 2]  # forked after turn 2
    assert reached
    assert all(kept[k]["fork"].get("restored") and _prefix(kept[k], 2) == _prefix(before[k], 2) for k in reached)
    assert any(_prefix(plain[k], 2) != _prefix(before[k], 2) for k in reached), "the override changed no prefix"
    assert not any(r["fork"].get("restored") for r in plain.values())
    report = json.loads((kept_dir / "replay.json").read_text())["graphs"][graph]
    assert sorted(report["restored"]) == sorted(k[1] for k in reached)


@pytest.mark.parametrize("value", ["yes", "[1,-2]", "3"])
def test_a_bad_checkpoints_value_is_one_line(tmp_path, value):
    proc = _run(tmp_path, "graph=interview", "episodes=1", f"checkpoints={value}", f"hydra.run.dir={tmp_path / 'x'}")
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and "checkpoints=" in lines[0] and "episode indices" in lines[0]
    assert not (tmp_path / "x").exists()


def test_a_replay_given_the_wrong_folder_or_spelling_says_what_to_give(tmp_path):
    from dialectica.sim.authoring.params import ConfigError
    from dialectica.sim.engine.replay import arguments

    run = tmp_path / "base"
    (run / "interview").mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps({"overrides": ["graph=interview"]}))
    for args, words in [
        ([str(run / "interview"), "from_turn=1"], f"interview is a graph's folder: give its run, {run}"),
        ([str(run), "--from-turn", "1"], "--from-turn: replay's keys are key=value, e.g. from_turn=..."),
        (["from_turn=1", str(run)], "RUN comes first, before from_turn=1"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(words)):
            arguments(args)


def test_a_replay_refuses_overrides_given_as_one_string(original):
    import dialectica

    with pytest.raises(dialectica.ConfigError, match=r"^overrides='graph.budget=4' is invalid; valid values: a list"):
        dialectica.replay(original, from_turn=1, overrides="graph.budget=4")  # type: ignore[arg-type]


HAGGLE = "graph=examples/custom_graph/src/haggle:SPEC"


@pytest.mark.parametrize(
    ("given", "original", "played", "refused"),
    [
        (HAGGLE, HAGGLE, ["haggle"], False),  # an import string's records carry its spec's own name
        ("graph=interview", "graph=interview", ["interview"], False),
        ("graph=interview", "graph=all", ["interview", "maieutic"], False),  # one graph of those it played
        ("graph=all", "graph=interview", ["interview"], False),  # the loader's to judge
        ("graph=maieutic", "graph=interview", ["interview"], True),
    ],
)
def test_a_replays_graph_is_refused_only_where_the_run_did_not_play_it(given, original, played, refused, tmp_path):
    import dialectica
    from dialectica.sim.engine.replay import _check_graph

    summary = {"graphs": {key: {} for key in played}, "overrides": [original]}
    if refused:
        with pytest.raises(dialectica.ConfigError, match=r"graph=maieutic: a replay forks the episodes .* of interview"):
            _check_graph(tmp_path, [given], summary)
    else:
        _check_graph(tmp_path, [given], summary)


def test_overrides_given_as_a_generator_are_read_once_and_kept(tmp_path):
    from dialectica.sim.config import load

    cfg = load((o for o in ["graph=maieutic", "tracking=none"]), out_dir=tmp_path / "unused")
    assert [run.spec.name for run in cfg.graphs] == ["maieutic"]
