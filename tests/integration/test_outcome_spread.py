"""No graph's outcome is fixed by its cast: the headline rate moves with the seed and with the thresholds.

A scripted cast that decides every episode the same way (a planted crash, a persona that always gives
up) would make a threshold sweep measure the script. For every built-in graph the convergence rate must
take more than one value across three seeds, and across the graph's threshold grid (``GraphSpec.grid``).
"""

from __future__ import annotations

import json

import pytest

from dialectica.sim.config.loader import compose, discovery, from_composed
from dialectica.sim.engine.batch import run_experiment

EPISODES = 16
QUICK = "++per_graph.tribunal.cast.hang_s=0.01"  # the tribunal's planted slow collector, kept short


@pytest.fixture(scope="module")
def embed():
    from dialectica.sim.engine.embedding import Embedder

    return Embedder(None)


def _rate(graph: str, seed: int, tmp_path, embed, *overrides: str) -> float:
    out = tmp_path / f"{graph}-{seed}-{'-'.join(overrides) or 'default'}"
    cfg = compose(
        [
            f"graph={graph}",
            f"episodes={EPISODES}",
            f"seed={seed}",
            "tracking=none",
            "progress=false",
            "embeddings=false",
            "view.enabled=false",
            "embedding_cache=null",
            QUICK,
            *overrides,
        ],
        tmp_path,
    )
    run_experiment(from_composed(cfg, out), embed=embed, echo=lambda _: None)
    return json.loads((out / "summary.json").read_text())["graphs"][graph]["metrics"]["convergence_rate"]


@pytest.mark.parametrize("graph", discovery.builtin_names())
def test_convergence_rate_moves_with_seed_and_thresholds(graph, tmp_path, embed):
    spec = discovery.load(graph)
    by_seed = {seed: _rate(graph, seed, tmp_path, embed) for seed in (11, 12, 13)}
    assert len(set(by_seed.values())) > 1, f"{graph}: the same rate {by_seed} for every seed"
    assert spec.grid, f"{graph} declares no threshold grid"
    for key, values in spec.grid.items():
        by_value = {v: _rate(graph, 11, tmp_path, embed, f"graph.{key}={v}") for v in values}
        assert len(set(by_value.values())) > 1, f"{graph}: the same rate {by_value} across graph.{key}"
