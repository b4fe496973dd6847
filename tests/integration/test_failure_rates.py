"""``participants.failure_rate`` and ``participants.role_failure_rate`` reach every graph, in process, through
the config, the runner and the casts: participants' failed calls become fallback turns, system roles' become
the graph's own fallback or an error record; at 0 nothing fails, and the same seed fails the same calls."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from dialectica.sim.authoring.faults import FaultRates
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.config.loader import compose, from_composed
from dialectica.sim.engine.batch import run_experiment

GRAPHS = ("socratic_panel", "committee", "interview", "maieutic", "tribunal")
QUICK = ("++per_graph.socratic_panel.retry_backoff_s=0", "++per_graph.tribunal.cast.hang_s=0.01")
SETTINGS = {"none": (), "participants": ("participants.failure_rate=0.5",), "roles": ("participants.role_failure_rate=0.5",)}


def fake_embed(texts: list[str]) -> np.ndarray:
    return np.stack(
        [np.frombuffer(hashlib.sha256(t.encode()).digest(), dtype=np.uint8)[:16].astype(float) - 127.5 for t in texts]
    )


def _config(tmp: Path, name: str, *overrides: str):
    cfg = compose(
        [
            "graph=all",
            "episodes=6",
            "seed=3",
            "tracking=none",
            "progress=false",
            "embeddings=false",
            "view.enabled=false",
            "embedding_cache=null",
            "max_error_rate=1",
            *QUICK,
            *overrides,
        ],
        tmp,
    )
    return from_composed(cfg, tmp / name)


def _records(out: Path) -> dict[str, list[dict]]:
    by_graph: dict[str, list[dict]] = {g: [] for g in GRAPHS}
    for line in (out / "episodes.jsonl").read_text().splitlines():
        record = json.loads(line)
        record.pop("timings")
        by_graph[record["graph"]].append(record)
    return by_graph


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, dict[str, list[dict]]]:
    tmp = tmp_path_factory.mktemp("faults")
    out = {}
    for name, overrides in SETTINGS.items():
        cfg = _config(tmp, name, *overrides)
        run_experiment(cfg, embed=fake_embed, echo=lambda _: None)
        out[name] = _records(cfg.out_dir)
    return out


def _turns(records: list[dict], role: str | None = None) -> list[dict]:
    return [t for r in records for t in r["transcript"] if role is None or t["role"] == role]


def _errors(records: list[dict], kind: str) -> list[dict]:
    return [r for r in records if r["termination_reason"] == "error" and kind in r["error"]]


def test_rates_are_validated_like_failure_rate(tmp_path):
    with pytest.raises(ConfigError, match=r"^participants\.role_failure_rate=1 is out of range; valid range: \[0, 1\)$"):
        _config(tmp_path, "bad", "participants.role_failure_rate=1")
    cfg = _config(tmp_path, "ok", "participants.role_failure_rate=0.25", "participants.failure_rate=0.5")
    assert cfg.faults == FaultRates(participant=0.5, role=0.25)
    surrogate = compose(["participants=surrogate"], tmp_path).participants
    assert (surrogate.failure_rate, surrogate.role_failure_rate, surrogate.crash_rate) == (0.0, 0.0, 0.0)


def test_at_zero_nothing_fails(runs):
    for graph, records in runs["none"].items():
        assert len(records) == 6 and not any(r["termination_reason"] == "error" for r in records), graph
        text = json.dumps(records)
        assert "Unavailable" not in text and "did not answer" not in text, graph
        if graph != "committee":  # an unreadable committee vote is a fallback too, faults or not
            assert not any(t.get("fallback") for t in _turns(records, "participant")), graph


def test_participant_failures_become_fallback_turns_in_every_graph_with_participants(runs):
    none, failing = runs["none"], runs["participants"]
    for graph in ("socratic_panel", "committee", "interview", "maieutic"):
        records = failing[graph]
        assert not any(r["termination_reason"] == "error" for r in records), graph  # never an episode lost
        fallbacks = [t for t in _turns(records) if t.get("fallback") and t["role"] in ("participant", "member")]
        assert fallbacks, f"{graph}: no participant fallback at failure_rate=0.5"
        assert not any(t.get("fallback") for t in _turns(records, "system")), graph  # system roles untouched
        assert records != none[graph], graph
    committee = [t["text"] for t in _turns(failing["committee"]) if t["fallback"]]
    assert any("did not answer: ParticipantUnavailable" in text for text in committee)
    # the panel records what the experts' retries cost
    assert sum(r["metrics"]["expert_fallbacks"] for r in failing["socratic_panel"]) > 0
    # the tribunal has no participants (its collectors' faults are participants.crash_rate): nothing changes
    assert failing["tribunal"] == none["tribunal"]


def test_role_failures_take_the_graphs_fallback_or_end_the_episode(runs):
    none, failing = runs["none"], runs["roles"]
    for graph, records in failing.items():
        assert not any(t.get("fallback") for t in _turns(records, "participant")), graph  # participants untouched
        assert records != none[graph], graph
    assert _errors(failing["socratic_panel"], "RoleUnavailable: moderator did not answer")
    assert _errors(failing["committee"], "RoleUnavailable: chair did not answer")
    interview = failing["interview"]
    assert any(t["fallback"] for t in _turns(interview, "system")) and not _errors(interview, "")
    maieutic = failing["maieutic"]
    unavailable = [
        turn
        for r in maieutic
        if r["termination_reason"] != "error"
        for turn in json.loads(r["artifacts"]["critic.json"])
        if turn["delivered"].get("unavailable")
    ]
    assert unavailable or _errors(maieutic, "RoleUnavailable: synthesizer did not answer")
    partial = [r for r in failing["tribunal"] if r["termination_reason"] == "partial_report"]
    assert any("RoleUnavailable" in r["artifacts"]["report.md"] for r in partial)


def test_the_same_seed_fails_the_same_calls(runs, tmp_path):
    cfg = _config(tmp_path, "again", *SETTINGS["participants"], "participants.role_failure_rate=0.3")
    cfg = dataclasses.replace(cfg, episodes=2)
    run_experiment(cfg, embed=fake_embed, echo=lambda _: None)
    first = _records(cfg.out_dir)
    run_experiment(dataclasses.replace(cfg, out_dir=tmp_path / "again2"), embed=fake_embed, echo=lambda _: None)
    assert _records(tmp_path / "again2") == first
