"""Same plan and seed give the same records (timings aside); a failing episode does not sink the run."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dialectica.sim.engine.episode
from dialectica.graphs.socratic_panel import SPEC
from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.sim.authoring.faults import FaultRates
from dialectica.sim.config.discovery import builtin_names
from dialectica.sim.config.typed import GraphRun, RunConfig, TrackingConfig
from dialectica.sim.engine.batch import run_experiment
from dialectica.sim.engine.build import EpisodePlan
from dialectica.sim.engine.episode import run_episode

ROOT = Path(__file__).resolve().parents[2]
# No real sleeping between retries: the scripted cast's failures would otherwise cost seconds.
PARAMS = PanelParams(retry_backoff_s=0.0)


def _plan(scenario: dict, seed: int, failure_rate: float = 0.2) -> EpisodePlan:
    return EpisodePlan("socratic_panel", 0, seed, scenario, "scripted", FaultRates(participant=failure_rate))


def _strip(record: dict) -> dict:
    return {k: v for k, v in record.items() if k != "timings"}


def _episode(scenario: dict, seed: int) -> dict:
    """One socratic_panel episode's record as a dict (``run_episode`` returns an EpisodeRecord)."""
    return run_episode(SPEC, PARAMS, _plan(scenario, seed)).model_dump()


def fake_embed(texts: list[str]) -> np.ndarray:
    return np.stack(
        [np.frombuffer(hashlib.sha256(t.encode()).digest(), dtype=np.uint8)[:16].astype(float) - 127.5 for t in texts]
    )


@pytest.mark.parametrize("seed", [0, 11])
def test_same_plan_gives_identical_records(tiny_scenario, seed):
    first = _episode(tiny_scenario, seed)
    second = _episode(tiny_scenario, seed)
    assert first["termination_reason"] != "error", first.get("error")
    assert first["transcript"] and first["per_round"]
    # as JSON: an undefined agreement (a round below quorum) is NaN, which no dict comparison finds equal
    assert json.dumps(_strip(first), sort_keys=True) == json.dumps(_strip(second), sort_keys=True)
    assert set(first["timings"]) == {
        "episode_seconds",
        "node_seconds",
        "llm_seconds",
        "llm_seconds_by_role",
        "node_path",
        "cache_lookups",
        "cache_hits",
        "rate_limited",
        "model_tokens_by_role",
    }


def test_a_different_seed_gives_a_different_transcript(tiny_scenario):
    transcripts = [json.dumps(_episode(tiny_scenario, seed)["transcript"]) for seed in (1, 2, 3)]
    assert len(set(transcripts)) == 3


_SCRIPT = """
import json, sys, yaml
from dialectica.graphs.socratic_panel import SPEC
from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.sim.authoring.faults import FaultRates
from dialectica.sim.engine.build import EpisodePlan
from dialectica.sim.engine.episode import run_episode
from dialectica.sim.authoring.data import datasets_dir
scenario = yaml.safe_load((datasets_dir() / "socratic_panel" / "scenarios" / "drug_launch.yaml").read_text())
plan = EpisodePlan("socratic_panel", 0, 5, scenario, "scripted", FaultRates(participant=0.2), SPEC.datasets)
record = run_episode(SPEC, PanelParams(retry_backoff_s=0.0), plan).model_dump()
record.pop("timings")
print(json.dumps(record, sort_keys=True))
"""


def test_records_do_not_depend_on_the_string_hash_seed():
    outputs = []
    for hash_seed in ("1", "2"):
        proc = subprocess.run(
            [sys.executable, "-c", _SCRIPT],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        outputs.append(json.loads(proc.stdout))
    assert outputs[0]["termination_reason"] != "error"
    assert outputs[0] == outputs[1]


def _config(out_dir: Path, scenarios: list[dict], episodes: int) -> RunConfig:
    return RunConfig(
        graphs=[GraphRun(SPEC, PARAMS, SPEC.cast_options(), scenarios, raw={}, datasets=SPEC.datasets)],
        episodes=episodes,
        seed=7,
        participants="scripted",
        faults=FaultRates(participant=0.2),
        tracking=TrackingConfig(False, "none", "none"),
        out_dir=out_dir,
        progress=False,
        resolved={},
    )


def _episodes(path: Path) -> list[dict]:
    return [_strip(json.loads(line)) for line in path.read_text().splitlines()]


def test_run_experiment_twice_writes_identical_episodes(tmp_path, tiny_scenario):
    cfg = _config(tmp_path / "a", [tiny_scenario], episodes=4)
    run_experiment(cfg, embed=fake_embed, echo=lambda line: None)
    run_experiment(dataclasses.replace(cfg, out_dir=tmp_path / "b"), embed=fake_embed, echo=lambda line: None)
    first, second = _episodes(tmp_path / "a" / "episodes.jsonl"), _episodes(tmp_path / "b" / "episodes.jsonl")
    assert len(first) == 4 and first == second
    assert len({json.dumps(r["transcript"]) for r in first}) > 1, "episodes must get different seeds"
    assert all("embedding_agreement" in r["metrics"] for r in first)


def test_failing_cast_is_recorded_as_error_and_other_episodes_complete(tmp_path, tiny_scenario, monkeypatch):
    real = dialectica.sim.engine.episode.build_deps

    def build_deps(spec, kind, request):
        if request.scenario["name"] == "cursed":
            raise RuntimeError("the cast exploded")
        return real(spec, kind, request)

    monkeypatch.setattr(dialectica.sim.engine.episode, "build_deps", build_deps)
    cursed = {**tiny_scenario, "name": "cursed"}
    summary = run_experiment(
        _config(tmp_path, [tiny_scenario, cursed], episodes=4), embed=fake_embed, echo=lambda line: None
    )
    records = [json.loads(line) for line in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert [r["scenario"] for r in records] == ["tiny", "cursed", "tiny", "cursed"]
    for record in records:
        if record["scenario"] == "cursed":
            assert record["termination_reason"] == "error"
            assert "Traceback" in record["error"] and "RuntimeError: the cast exploded" in record["error"]
            assert record["transcript"] == [] and "timings" in record
        else:
            assert record["termination_reason"] in ("converged", "max_rounds") and record["transcript"]
            assert "error" not in record
    metrics = summary["graphs"]["socratic_panel"]["metrics"]
    assert metrics["error_rate"] == 0.5 and metrics["termination/error"] == 0.5


@pytest.mark.parametrize("graph", builtin_names())
def test_every_graph_is_reproducible_from_its_seed(graph):
    from dialectica.sim.config.discovery import load
    from dialectica.sim.config.scenarios import load_scenarios

    spec = load(graph)
    params = spec.params()
    scenarios = load_scenarios(spec.datasets, spec, "all")
    # the tribunal's planted hang (graph.cast.hang_s) kept short
    options = spec.cast_options(**({"hang_s": 0.01} if graph == "tribunal" else {}))
    for i, scenario in enumerate(scenarios[:3]):
        plan = EpisodePlan(graph, i, 1000 + i, scenario, "scripted", datasets=spec.datasets, options=options)
        first = run_episode(spec, params, plan, fake_embed).model_dump()
        second = run_episode(spec, params, plan, fake_embed).model_dump()
        assert first["termination_reason"] != "error", first.get("error")
        same = [json.dumps(_strip(r), sort_keys=True, default=str) for r in (first, second)]
        assert same[0] == same[1]
