"""Tribunal metrics pooled over episodes: partial reports, timeouts, and proof of parallelism."""

from __future__ import annotations

from collections.abc import Sequence

from dialectica.metrics import MetricFn, Record
from dialectica.metrics.stats import mean, percentile


def layer_runs(record: Record) -> list[tuple[str, float, float]]:
    """(layer, wall seconds, sum of its branches' seconds) for every layer run of an episode."""
    timings = record.get("timings", {})
    branches = timings.get("branches", [])
    runs = []
    for layer in timings.get("layers", []):
        members = [
            b
            for b in branches
            if b["layer"] == layer["layer"] and (layer["layer"] == "detective" or b.get("round") == layer["round"])
        ]
        runs.append((layer["layer"], layer["wall_seconds"], sum(b["seconds"] for b in members)))
    return runs


def tribunal() -> MetricFn:
    """``partial_report_rate``, ``timeout_rate`` (branches past the deadline), and per layer the wall time
    against the sum of its branches' times: ``parallel_speedup_mean/<layer>`` near the branch count means
    the branches overlapped; near 1 means they ran one after another."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        n = len(records)
        branches = [b for r in records for b in r.get("timings", {}).get("branches", [])]
        out = {
            "partial_report_rate": (
                sum(r["termination_reason"] == "partial_report" for r in records) / n if n else float("nan")
            ),
            "timeout_rate": mean([float(b["timed_out"]) for b in branches]),
        }
        runs: dict[str, list[tuple[float, float]]] = {}
        for r in records:
            for layer, wall, total in layer_runs(r):
                runs.setdefault(layer, []).append((wall, total))
        for layer, pairs in sorted(runs.items()):
            out[f"layer_seconds_p50/{layer}"] = percentile([w for w, _ in pairs], 50)
            out[f"branch_seconds_sum_p50/{layer}"] = percentile([t for _, t in pairs], 50)
            out[f"parallel_speedup_mean/{layer}"] = mean([t / w for w, t in pairs if w > 0])
        return out

    return compute
