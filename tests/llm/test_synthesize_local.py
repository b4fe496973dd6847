"""``dialectica synthesize`` on the real local model: scenarios for the support bot's customers, written, checked,
distinct, and an evaluation runs on them as written. Bounded by work: 5 scenarios, at most 15 calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "support_bot"
MODELS = f"llm.model_dir={ROOT / 'results' / 'cache' / 'models'}"


def test_synthesized_scenarios_run_as_written(tmp_path: Path):
    env = {**os.environ, "PYTHONPATH": str(EXAMPLE / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "dialectica", "synthesize", "airline customers asking about refunds for their flights",
         "--count", "5", "--out", "scenarios.yaml", MODELS, f"llm.cache={tmp_path / 'llm.sqlite'}"],
        capture_output=True, text=True, cwd=tmp_path, env=env, check=False,
    )  # fmt: skip
    assert "scenarios from" in proc.stdout, proc.stderr[-2000:]
    scenarios = yaml.safe_load((tmp_path / "scenarios.yaml").read_text())
    assert 1 <= len(scenarios) <= 5 and (proc.returncode == 0) == (len(scenarios) == 5)
    assert len({s["name"] for s in scenarios}) == len(scenarios)
    assert all(s["persona"] and s["instructions"] and s["opening"][0] for s in scenarios)
    run = subprocess.run(
        [sys.executable, "-m", "dialectica", "graph=support_bot.graph:graph", "graph.scenarios=scenarios.yaml",
         "participants=surrogate", "llm=llamacpp", MODELS, "llm.max_tokens=32", "graph.max_turns=1",
         f"episodes={len(scenarios)}", "tracking=none", "progress=false", "hydra.run.dir=run"],
        capture_output=True, text=True, cwd=tmp_path, env=env, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    records = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    assert {r["scenario"] for r in records} == {s["name"] for s in scenarios}
    assert all(r["termination_reason"] != "error" for r in records)
