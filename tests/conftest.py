"""Shared fixtures: a tiny mock scenario and the repo's paths."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TIERS = ("unit", "integration", "slow", "llm")  # the folders under tests/, each a marker of the same name
BIN = Path(sys.executable).parent / "dialectica"

if os.environ.get("PYTEST_XDIST_WORKER"):
    # Workers share the cores: torch, BLAS and the local LLM (llm.n_threads: null follows OMP_NUM_THREADS) in each
    # worker and in the commands it starts get one thread, so that no thread pool spins waiting for a core another
    # worker holds.
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    # The local LLM likewise: one thread, and a model lock of the worker's own (sim/llm/machine.py), so that the two
    # workers' models compute side by side, each on a core, rather than taking turns on both cores while the other
    # worker's own tests keep one of them busy (which stalls llama.cpp's threads: the suite took 30 minutes, not 22).
    os.environ.setdefault("DIALECTICA_LLM_THREADS", "1")
    worker = os.environ["PYTEST_XDIST_WORKER"]
    os.environ.setdefault("DIALECTICA_LLM_LOCK", os.path.join(tempfile.gettempdir(), f"dialectica-llm-{worker}.lock"))


# Run order for ``--dist worksteal``: it gives the first worker the first half of the tests (by count) and the
# other the rest; each runs its half from the front, and an idle worker steals the back of the other's queue.
# So each half is laid out long tests first, whole files to one half, balanced by a rough cost per tier: what
# is left to share at the end is short tests, and neither worker waits alone on a minute-long one.
COST = {"llm": 60.0, "slow": 25.0, "integration": 3.0, "unit": 0.3}  # seconds a test, roughly


def halves(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` reordered as two halves of equal count and similar cost, each in ``COST``'s tier order."""
    files: dict[Path, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.path, []).append(item)
    tiers = list(COST)
    rank = lambda path: tiers.index(path.parent.name) if path.parent.name in COST else len(tiers)  # noqa: E731
    half: tuple[list[pytest.Item], list[pytest.Item]] = ([], [])
    cost = [0.0, 0.0]
    spread: list[pytest.Item] = []  # unit tests, dealt last to even the counts
    for path in sorted(files, key=rank):
        if path.parent.name == "unit":
            spread += files[path]
            continue
        side = cost.index(min(cost))
        half[side].extend(files[path])
        cost[side] += COST.get(path.parent.name, 1.0) * len(files[path])
    first = len(items) // 2 - len(half[0])
    first = min(max(first, 0), len(spread))
    return half[0] + spread[:first] + half[1] + spread[first:]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test carries its folder's tier as a marker, so that ``-m "not llm"`` is exactly every folder but the
    local LLM's, and ``-m "not slow and not llm"`` the fast ones; the order is ``halves``'."""
    for item in items:
        tier = item.path.parent.name
        if tier in TIERS:
            item.add_marker(getattr(pytest.mark, tier))
    items[:] = halves(items)


@pytest.fixture(scope="session")
def recorded_run() -> Callable[..., tuple[list[dict], dict]]:
    """``recorded_run(tmp, graph, *overrides)`` runs the real CLI (tracking off, no progress bar) into
    ``tmp/run`` and returns the records of ``episodes.jsonl`` and the graph's metrics from ``summary.json``."""

    def run(tmp: Path, graph: str, *overrides: str) -> tuple[list[dict], dict]:
        proc = subprocess.run(
            [str(BIN), f"graph={graph}", "tracking=none", "progress=false", *overrides, f"hydra.run.dir={tmp / 'run'}"],
            capture_output=True,
            text=True,
            cwd=tmp,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        records = [json.loads(line) for line in (tmp / "run" / "episodes.jsonl").read_text().splitlines()]
        return records, json.loads((tmp / "run" / "summary.json").read_text())["graphs"][graph]["metrics"]

    return run


def assert_recomputed(record: dict, want: dict) -> None:
    """Each recomputed episode metric equals the record's; an undefined (NaN) one is null there."""
    for key, value in want.items():
        if isinstance(value, float) and math.isnan(value):
            assert record["metrics"][key] is None, (record["episode"], key)
        else:
            assert record["metrics"][key] == pytest.approx(value), (record["episode"], key)


@pytest.fixture(scope="session")
def recomputed() -> Callable[[dict, dict], None]:
    """``recomputed(record, want)``: see :func:`assert_recomputed`."""
    return assert_recomputed


@pytest.fixture
def tiny_scenario() -> dict:
    """Two experts, one short chain each; small enough to reason about by hand."""
    return {
        "name": "tiny",
        "query": "Should the bakery open on sundays?",
        "claims": [
            {"id": "c1", "text": "sunday trade will cover its extra wages"},
            {"id": "c2", "text": "regular customers will come on sundays"},
            {"id": "c3", "text": "staff will accept weekend shifts"},
        ],
        "assumptions": [
            {"id": "a1", "text": "tourists walk past the shop on sundays", "parent": None, "claim": "c1"},
            {"id": "a2", "text": "the market square draws weekend visitors", "parent": "a1", "claim": None},
            {"id": "a3", "text": "families shop together at weekends", "parent": None, "claim": "c2"},
        ],
        "evidence": [
            {
                "id": "e1",
                "assumption": "a1",
                "finding": "footfall doubled on sundays",
                "citation": "Town Council",
                "year": 2022,
                "source_type": "observational",
                "strength": "high",
                "bias_risk": "low",
                "sample_size": 5200,
                "unit": "passers-by",
            },
            {
                "id": "e2",
                "assumption": "a3",
                "finding": "families made most weekend purchases",
                "citation": "Baker et al.",
                "year": 2020,
                "source_type": "study",
                "strength": "low",
                "bias_risk": "high",
                "sample_size": 25,
                "unit": "households",
            },
        ],
        "experts": [
            {
                "id": "owner",
                "name": "Ada Brot",
                "role": "bakery owner",
                "stubbornness": 0.2,
                "persuadability": 0.8,
                "openness": 0.9,
                "verbosity": 0.9,
                "claims": ["c1", "c2"],
                "assumptions": ["a1"],
                "rejects": [],
                "evidence": ["e1"],
            },
            {
                "id": "accountant",
                "name": "Ben Zahl",
                "role": "accountant",
                "stubbornness": 0.5,
                "persuadability": 0.5,
                "openness": 0.7,
                "verbosity": 0.8,
                "claims": ["c1", "c3"],
                "assumptions": ["a3"],
                "rejects": ["a1"],
                "evidence": ["e2"],
            },
        ],
    }
