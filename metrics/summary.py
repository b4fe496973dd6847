"""The aggregate metrics of a graph run, named as in DESIGN.md."""

from __future__ import annotations

from collections.abc import Sequence

from dialectica.metrics import Metric, MetricFn, Record
from dialectica.metrics.stats import mean, percentile, wilson_interval
from dialectica.sim.termination import TerminationReason


def _ok(records: Sequence[Record]) -> list[Record]:
    return [r for r in records if r["termination_reason"] != TerminationReason.ERROR.value]


def convergence() -> MetricFn:
    """Convergence rate over all episodes (errors count as not converged), 95% Wilson interval, error rate."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        n = len(records)
        k = sum(r["termination_reason"] == TerminationReason.CONVERGED.value for r in records)
        low, high = wilson_interval(k, n)
        errors = sum(r["termination_reason"] == TerminationReason.ERROR.value for r in records)
        return {
            "episodes": n,
            "convergence_rate": k / n if n else float("nan"),
            "convergence_rate_ci95_low": low,
            "convergence_rate_ci95_high": high,
            "error_rate": errors / n if n else float("nan"),
        }

    return compute


def termination() -> MetricFn:
    """Share of episodes per termination reason; every reason appears, so columns line up across runs."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        n = len(records) or 1
        return {
            f"termination/{reason.value}": sum(r["termination_reason"] == reason.value for r in records) / n
            for reason in TerminationReason
        }

    return compute


def episode_means() -> MetricFn:
    """``<key>_mean`` for every numeric episode metric (``rounds`` -> ``rounds_mean``), and the maximum
    for keys ending in ``_max``; episodes that errored and NaN values are left out; no values, no key."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        values: dict[str, list[float]] = {}
        for r in _ok(records):
            for key, value in r["metrics"].items():
                if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value:
                    values.setdefault(key, []).append(float(value))
        return {key if key.endswith("_max") else f"{key}_mean": max(v) if key.endswith("_max") else mean(v)
                for key, v in sorted(values.items())}

    return compute


def by_scenario() -> MetricFn:
    """Convergence rate per scenario, so a hard scenario cannot hide in the average."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        groups: dict[str, list[Record]] = {}
        for r in records:
            groups.setdefault(r["scenario"], []).append(r)
        return {
            f"scenario/{name}/convergence_rate": sum(r["termination_reason"] == "converged" for r in rs) / len(rs)
            for name, rs in sorted(groups.items())
        }

    return compute


def by_label() -> MetricFn:
    """``<label>/<value>/convergence_rate`` and ``<label>/<value>/<metric>_mean`` for every label an
    episode carries (for example ``schema/job_shop/ascr_recall_mean``)."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        groups: dict[str, list[Record]] = {}
        for r in records:
            for key, value in r.get("labels", {}).items():
                groups.setdefault(f"{key}/{value}", []).append(r)
        out = {}
        for prefix, rs in sorted(groups.items()):
            out[f"{prefix}/convergence_rate"] = sum(r["termination_reason"] == "converged" for r in rs) / len(rs)
            out |= {f"{prefix}/{k}": v for k, v in episode_means()(rs).items()}
        return out

    return compute


def timings() -> MetricFn:
    """Episode wall-time percentiles and the median time of one run of each node."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        out = {
            "episode_seconds_p50": percentile([r["timings"]["episode_seconds"] for r in records], 50),
            "episode_seconds_p95": percentile([r["timings"]["episode_seconds"] for r in records], 95),
        }
        nodes: dict[str, list[float]] = {}
        for r in records:
            for node, seconds in r["timings"]["node_seconds"].items():
                nodes.setdefault(node, []).extend(seconds)
        out |= {f"node_seconds_p50/{node}": percentile(times, 50) for node, times in sorted(nodes.items())}
        return out

    return compute


def usage() -> MetricFn:
    """Model calls and tokens per episode; parse failures and empty replies in all; the share of calls
    the call cache answered (only when some model had a cache); the share of episode time spent in
    model calls; and calls, tokens and seconds per episode for each role."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        out = {
            "llm_calls_mean": mean([r["usage"]["llm_calls"] for r in records]),
            "tokens_total_mean": mean([r["usage"]["tokens_total"] for r in records]),
            "parse_failures": float(sum(r["usage"].get("parse_failures", 0) for r in records)),
            "empty_replies": float(sum(r["usage"].get("empty_replies", 0) for r in records)),
        }
        lookups = sum(r["timings"].get("cache_lookups", 0) for r in records)
        if lookups:
            out["cache_hit_rate"] = sum(r["timings"].get("cache_hits", 0) for r in records) / lookups
        wall = sum(r["timings"]["episode_seconds"] for r in records)
        if wall > 0:
            out["llm_seconds_share"] = sum(r["timings"].get("llm_seconds", 0.0) for r in records) / wall
        roles = sorted({role for r in records for role in r["usage"].get("calls_by_role", {})})
        for role in roles:
            out[f"role/{role}/calls_mean"] = mean([r["usage"].get("calls_by_role", {}).get(role, 0) for r in records])
            out[f"role/{role}/tokens_mean"] = mean([r["usage"].get("tokens_by_role", {}).get(role, 0) for r in records])
            out[f"role/{role}/seconds_mean"] = mean(
                [r["timings"].get("llm_seconds_by_role", {}).get(role, 0.0) for r in records])
        return out

    return compute


COMMON: tuple[Metric, ...] = (convergence, termination, episode_means, by_scenario, timings, usage)


def aggregate(records: Sequence[Record], metrics: Sequence[Metric] = COMMON) -> dict[str, float]:
    """Runs the metrics (the common ones by default) and merges their outputs."""
    out: dict[str, float] = {}
    for factory in metrics:
        out |= factory()(records)
    return out


def per_round_means(records: Sequence[Record]) -> list[dict[str, float]]:
    """Mean of each numeric per-round value across episodes, by round index (for step plots).

    ``episodes`` is how many non-error episodes reached that round; NaN values are skipped.
    """
    ok = _ok(records)
    depth = max((len(r["per_round"]) for r in ok), default=0)
    rows = []
    for i in range(depth):
        values: dict[str, list[float]] = {}
        reached = [r["per_round"][i] for r in ok if len(r["per_round"]) > i]
        for entry in reached:
            for key, value in entry.items():
                if isinstance(value, (int, float)) and key != "round" and value == value:
                    values.setdefault(key, []).append(float(value))
        rows.append({k: mean(v) for k, v in values.items()} | {"episodes": float(len(reached))})
    return rows
