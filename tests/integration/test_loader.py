"""The one loader and the one runner from Python: a RunConfig built with ``load`` and changed with
``dataclasses.replace`` runs as the same keys given as overrides, and says its values where they are logged."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.config import load
from dialectica.sim.engine import checkpoint, run

BASE = ["graph=interview", "tracking=none", "embeddings=false", "view.enabled=false", "progress=false"]


def _records(out):
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


def _same(a, b):
    drop = ("timings", "seconds", "started_at")
    strip = lambda r: {k: v for k, v in r.items() if not any(d in k for d in drop)}  # noqa: E731
    return [strip(r) for r in a] == [strip(r) for r in b]


def test_a_replaced_config_runs_as_its_overrides_would(tmp_path):
    base = load([*BASE, "episodes=3", "seed=0"], out_dir=tmp_path / "unused")
    changed = dataclasses.replace(base, seed=5, episodes=4, out_dir=tmp_path / "replaced")
    assert changed.resolved["seed"] == 5 and changed.resolved["episodes"] == 4  # what MLflow logs and resume checks
    assert base.resolved["seed"] == 0  # the original is untouched

    by_replace = run(changed, echo=lambda _: None)
    by_overrides = run(load([*BASE, "episodes=4", "seed=5"], out_dir=tmp_path / "given"), echo=lambda _: None)

    untimed = lambda m: {k: v for k, v in m.items() if "seconds" not in k}  # noqa: E731
    assert untimed(by_replace.metrics("interview")) == untimed(by_overrides.metrics("interview"))
    assert _same(_records(tmp_path / "replaced"), _records(tmp_path / "given"))
    fingerprints = [json.loads((tmp_path / d / checkpoint.FILE).read_text()) for d in ("replaced", "given")]
    assert fingerprints[0] == fingerprints[1]


def test_values_set_python_objects_without_quoting_and_are_checked(tmp_path):
    cfg = load([*BASE], out_dir=tmp_path / "a", values={"graph.budget": 3, "episodes": 2})
    assert cfg.graphs[0].params.budget == 3 and cfg.episodes == 2
    with pytest.raises(ConfigError, match="graph.budget"):
        load([*BASE], out_dir=tmp_path / "b", values={"graph.budget": -1})


def test_resume_returns_a_finished_run_as_it_is_and_marks_each_graph_done(tmp_path):
    cfg = load([*BASE, "episodes=2"], out_dir=tmp_path / "run")
    first = run(cfg, echo=lambda _: None)
    assert not first.already_finished and (tmp_path / "run" / "interview" / checkpoint.DONE).exists()
    again = run(dataclasses.replace(cfg, resume=True), echo=lambda _: None)
    assert again.already_finished and again.values == json.loads((tmp_path / "run" / "summary.json").read_text())
    with pytest.raises(ConfigError, match="seed"):  # resuming under another config is refused, the folder kept
        run(dataclasses.replace(cfg, resume=True, seed=9), echo=lambda _: None)
    assert (tmp_path / "run" / "episodes.jsonl").exists()


def test_resuming_with_more_episodes_plays_the_missing_ones_as_one_longer_run_would(tmp_path):
    cfg = load([*BASE, "episodes=2", "seed=4"], out_dir=tmp_path / "grown")
    run(cfg, echo=lambda _: None)
    grown = run(dataclasses.replace(cfg, episodes=5, resume=True), echo=lambda _: None)
    whole = run(load([*BASE, "episodes=5", "seed=4"], out_dir=tmp_path / "whole"), echo=lambda _: None)
    assert not grown.already_finished and grown.metrics("interview")["episodes"] == 5
    assert _same(_records(tmp_path / "grown"), _records(tmp_path / "whole"))
    untimed = lambda m: {k: v for k, v in m.items() if "seconds" not in k}  # noqa: E731
    assert untimed(grown.metrics("interview")) == untimed(whole.metrics("interview"))
    again = run(dataclasses.replace(cfg, episodes=5, resume=True), echo=lambda _: None)
    assert again.already_finished


@pytest.mark.parametrize("budget", ["budget.episodes=3", "budget.tokens=1"])
def test_a_budget_stops_the_run_cleanly_and_resume_with_a_larger_one_finishes_it(budget, tmp_path):
    cfg = load([*BASE, "graph=all", "episodes=4", "seed=2", budget], out_dir=tmp_path / "cut")
    cut = run(cfg, echo=lambda _: None)
    assert cut.values["stopped_by"] == f"budget.{budget.split('=')[0].split('.')[1]}"
    assert sum(1 for _ in (tmp_path / "cut" / "episodes.jsonl").open()) < 4 * len(cfg.graphs)
    stopped = [g for g, e in cut.graphs.items() if e.get("stopped_by")]
    assert len(stopped) == 1 and not (tmp_path / "cut" / stopped[0] / checkpoint.DONE).exists()
    assert not run(dataclasses.replace(cfg, resume=True), echo=lambda _: None).already_finished  # still spent: no more

    unlimited = dataclasses.replace(cfg, resume=True, budget=dataclasses.replace(cfg.budget, episodes=None, tokens=None))
    finished = run(unlimited, echo=lambda _: None)
    whole = run(load([*BASE, "graph=all", "episodes=4", "seed=2"], out_dir=tmp_path / "whole"), echo=lambda _: None)
    assert "stopped_by" not in finished.values and set(finished.graphs) == set(whole.graphs)
    by_key = lambda rs: sorted(rs, key=lambda r: (r["graph"], r["episode"]))  # noqa: E731
    assert _same(by_key(_records(tmp_path / "cut")), by_key(_records(tmp_path / "whole")))
    assert run(unlimited, echo=lambda _: None).already_finished


def test_the_seconds_budget_reads_an_injected_clock():
    from dialectica.sim.config.budget import Budget
    from dialectica.sim.engine.budget import Spend

    now = [100.0]
    spend = Spend(Budget(seconds=5.0), clock=lambda: now[0])
    spend.add({"usage": {"tokens_total": 7}})
    assert spend.spent() is None and spend.tokens == 7
    now[0] = 105.0
    assert spend.spent() == "seconds"
    with pytest.raises(ConfigError, match=r"budget.tokens=0 is invalid"):
        Budget.from_mapping({"tokens": 0})


def test_a_lean_run_draws_no_figures_and_never_imports_matplotlib(tmp_path):
    script = (
        "import sys; from pathlib import Path; from dialectica.sim.config import load; from dialectica.sim.engine "
        f"import run; out = Path(sys.argv[1]); run(load({[*BASE, 'episodes=1']!r} + sys.argv[2:], out_dir=out), "
        "echo=lambda _: None); print('matplotlib' in sys.modules)"
    )
    lean = subprocess.run([sys.executable, "-c", script, str(tmp_path / "lean")], capture_output=True, text=True)
    drawn = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "drawn"), "view.enabled=true"], capture_output=True, text=True
    )
    assert lean.returncode == 0 and drawn.returncode == 0, lean.stderr + drawn.stderr
    assert lean.stdout.split()[-1] == "False" and drawn.stdout.split()[-1] == "True"
    assert not list((tmp_path / "lean" / "interview").glob("*.png"))
    assert {"by_round.png", "node_times.png"} <= {p.name for p in (tmp_path / "drawn" / "interview").glob("*.png")}


def test_a_configs_overrides_rebuild_it_after_python_values_and_a_replace(tmp_path):
    cfg = load([*BASE, "seed=0"], out_dir=tmp_path / "a", values={"graph.budget": 3, "episodes": 2})
    changed = dataclasses.replace(cfg, seed=1, episodes=6)
    assert "seed=1" in changed.overrides and "seed=0" not in changed.overrides
    assert load(changed.overrides, out_dir=tmp_path / "b").resolved == changed.resolved


def test_a_replaced_episode_count_or_seed_is_checked_as_the_loader_checks_it(tmp_path):
    import numpy as np

    base = load([*BASE, "episodes=2"], out_dir=tmp_path / "unused")
    for key, bad in (("episodes", 0), ("episodes", -3), ("episodes", 2.5), ("seed", "1"), ("seed", True), ("seed", -1)):
        with pytest.raises(ConfigError, match=rf"^{key}={bad!r} is invalid; valid values: integers"):
            dataclasses.replace(base, **{key: bad})
    changed = dataclasses.replace(base, seed=np.int64(3), out_dir=str(tmp_path / "as-text"))
    assert type(changed.seed) is int and changed.seed == 3 and changed.resolved["seed"] == 3
    assert changed.out_dir == tmp_path / "as-text"
    with pytest.raises(ConfigError, match=r"^overrides='graph=interview' is invalid; valid values: a list"):
        load("graph=interview", out_dir=tmp_path / "unused")  # type: ignore[arg-type]


def test_reading_a_graph_the_run_did_not_play_names_those_it_did(tmp_path):
    from dialectica import load_episodes

    summary = run(load([*BASE, "episodes=2"], out_dir=tmp_path / "run"), echo=lambda _: None)
    assert len(load_episodes(tmp_path / "run", graphs="interview")) == 2  # one name as a string
    with pytest.raises(ValueError, match=r"graphs=\['interviw'\]: .* holds no episode of them; valid choices: interview"):
        load_episodes(tmp_path / "run", graphs=["interviw"])
    with pytest.raises(KeyError, match="'interviw': this run played no such graph; valid choices: interview"):
        summary.metrics("interviw")
