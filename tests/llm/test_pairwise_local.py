"""``dialectica pairwise`` on the real local model: the support bot under two refund windows, a scripted customer,
each pair judged in both orders. Bounded by work: 4 pairs, 8 judge calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "support_bot"
MODELS = f"llm.model_dir={ROOT / 'results' / 'cache' / 'models'}"


def test_pairwise_on_the_support_bot_under_two_refund_windows(tmp_path: Path):
    env = {**os.environ, "PYTHONPATH": str(EXAMPLE / "src")}
    for name, days in (("strict", 1), ("generous", 365)):
        proc = subprocess.run(
            [sys.executable, "-m", "dialectica", "graph=support_bot.graph:graph",
             f"graph.scenarios={EXAMPLE / 'scenarios.yaml'}", "graph.user=support_bot.evaluation:customer",
             "graph.judge=support_bot.evaluation:refunded", f"graph.refund_window_days={days}", "episodes=4",
             "seed=0", "tracking=none", "progress=false", f"hydra.run.dir={tmp_path / name}"],
            capture_output=True, text=True, cwd=tmp_path, env=env, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-2000:]
    proc = subprocess.run(
        [sys.executable, "-m", "dialectica", "pairwise", str(tmp_path / "strict"), str(tmp_path / "generous"),
         "--both-orders", "llm.max_tokens=64", MODELS, f"llm.cache={tmp_path / 'llm.sqlite'}"],
        capture_output=True, text=True, cwd=tmp_path, env=env, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "B's win rate" in proc.stdout and "picked the first shown" in proc.stdout, proc.stdout
    (graph,) = json.loads((tmp_path / "generous" / "pairwise.json").read_text())["graphs"]
    assert graph["pairs"] == 4 and len(graph["comparisons"]) == 8
    orders: dict[tuple[int, str], set[str]] = {}
    for c in graph["comparisons"]:
        orders.setdefault((c["seed"], c["scenario"]), set()).add(c["first"])
        assert c["preferred"] in ("a", "b", "tie") and c["reason"]
    assert all(o == {"a", "b"} for o in orders.values())  # each pair shown both ways
    assert 0 <= graph["win_rate_b"] <= 1 and graph["ci95"][0] <= graph["win_rate_b"] <= graph["ci95"][1]
