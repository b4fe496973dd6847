"""Every headline metric of a real interview run, recomputed from its episodes.jsonl alone."""

from __future__ import annotations

import json
import math
import statistics

import pytest


@pytest.fixture(scope="module")
def run(tmp_path_factory, recorded_run):
    return recorded_run(tmp_path_factory.mktemp("interview"), "interview", "episodes=24", "seed=2", "graph.budget=5")


def _facts(ascr: dict, kinds: dict) -> set:
    out = set()
    for name, value in ascr.items():
        kind = kinds.get(name)
        if kind == "list":
            out |= {(name, str(v)) for v in value}
        elif kind == "map":
            out |= {(f"{name}.{k}", str(v)) for k, v in value.items()}
        elif kind not in (None, "text"):
            out.add((name, str(value)))
    return out


def _filled(field: dict, value) -> bool:
    if value in (None, "", {}):
        return False
    return len(value) >= field["min_items"] if field["kind"] == "list" else True


def _recompute(record: dict) -> dict:
    schema = json.loads(record["artifacts"]["schema.json"])
    kinds = {f["name"]: f["kind"] for f in schema}
    ascr, truth = json.loads(record["artifacts"]["ascr.json"]), json.loads(record["artifacts"]["truth.json"])
    got, want = _facts(ascr, kinds), _facts(truth, kinds)
    required = [f for f in schema if f["required"]]
    return {
        "rounds": len(record["per_round"]),
        "depth": sum(_filled(f, ascr.get(f["name"])) for f in required),
        "required_fields": len(required),
        "ascr_precision": len(got & want) / len(got) if got else math.nan,
        "ascr_recall": len(got & want) / len(want) if want else math.nan,
        "wasted_turns": sum(e["wasted"] for e in record["per_round"]),
        "converged": all(_filled(f, ascr.get(f["name"])) for f in required),
    }


def test_episode_metrics_recompute_from_the_record(run, recomputed):
    records, _ = run
    for record in records:
        want = _recompute(record)
        assert (record["termination_reason"] == "converged") == want.pop("converged"), record["episode"]
        recomputed(record, want)


def test_headline_rates_and_means(run):
    records, summary = run
    reasons = [r["termination_reason"] for r in records]
    assert set(reasons) <= {"converged", "budget_exhausted"} and len(set(reasons)) == 2
    assert summary["convergence_rate"] == pytest.approx(reasons.count("converged") / len(records))
    assert summary["termination/budget_exhausted"] == pytest.approx(reasons.count("budget_exhausted") / len(records))
    for key in ("rounds", "depth", "ascr_precision", "ascr_recall", "wasted_turns"):
        values = [v for r in records if not math.isnan(v := _recompute(r)[key])]
        assert summary[f"{key}_mean"] == pytest.approx(statistics.fmean(values)), key
