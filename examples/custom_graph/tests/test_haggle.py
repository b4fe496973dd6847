"""The plugin's own tests: the graph alone, then through Dialectica's command line."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from haggle import SPEC
from haggle.graph import _price

import dialectica
from dialectica.graph import CastRequest


def test_prices_are_read_from_words_and_a_reply_without_one_keeps_the_last():
    assert _price("How about 1,250?", 900.0) == 1250.0
    assert _price("No way.", 900.0) == 900.0


def test_dialectica_finds_the_plugin_by_its_entry_point():
    assert entry_points(group="dialectica.graphs")["haggle"].load() is SPEC


def test_a_wider_gap_closes_more_deals(tmp_path: Path):
    sofa = {
        "name": "sofa",
        "item": "a sofa",
        "list_price": 1200,
        "opening_offer": 600,
        "seller_limit": 950,
        "buyer_limit": 900,
        "seller_step": 0.15,
        "buyer_step": 0.15,
    }
    SPEC.casts["scripted"](CastRequest(sofa, 0))  # the cast builds from a scenario alone

    def deals(gap: float) -> float:
        run = dialectica.evaluate(
            SPEC,
            scenarios=["sofa"],
            episodes=8,
            params={"gap": gap},
            tracking="none",
            progress=False,
            out_dir=tmp_path / str(gap),
        )
        return run.metrics["convergence_rate"]

    assert deals(0.01) == 0 < deals(0.3)


def test_the_harness_runs_it_with_every_generic_metric(tmp_path: Path):
    out = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "dialectica",
            "graph=haggle",
            "episodes=6",
            "tracking=none",
            "embeddings=false",
            "progress=false",
            f"hydra.run.dir={out}",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    metrics = json.loads((out / "summary.json").read_text())["graphs"]["haggle"]["metrics"]
    assert metrics["episodes"] == 6 and 0 <= metrics["convergence_rate"] <= 1
    assert metrics["rounds_mean"] >= 1 and "final_gap_mean" in metrics
    assert sum(1 for _ in (out / "episodes.jsonl").open()) == 6
