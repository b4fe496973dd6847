"""The aggregate metrics of a graph run, named as in DESIGN.md."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from dialectica.metrics import Metric, MetricFn, Record, TerminationReason, converged
from dialectica.metrics.passk import mean_pass_hat_k
from dialectica.metrics.stats import mean, percentile, wilson_interval


def _ok(records: Iterable[Record]) -> Iterator[Record]:
    """The episodes that did not raise, one at a time (records may be parsed on access)."""
    return (r for r in records if r["termination_reason"] != TerminationReason.ERROR.value)


def convergence() -> MetricFn:
    """Convergence rate over all episodes (the share that ended as their graph counts convergence; errors count
    as not converged), 95% Wilson interval, error rate."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        n = len(records)
        k = sum(converged(r) for r in records)
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


def termination(declared: Iterable[str] = ()) -> MetricFn:
    """Share of episodes per termination reason. The endings a graph declares, and ``error``, always appear, so
    that columns line up across runs (the harness's whole vocabulary for a graph that declares none); any other
    reason found in the records too. A graph's summary holds its own endings, no other graph's."""
    vocabulary = [*declared, TerminationReason.ERROR] if declared else list(TerminationReason)

    def compute(records: Sequence[Record]) -> dict[str, float]:
        n = len(records) or 1
        reasons = dict.fromkeys([*vocabulary, *(r["termination_reason"] for r in records)])
        return {f"termination/{reason}": sum(r["termination_reason"] == reason for r in records) / n for reason in reasons}

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
        return {
            key if key.endswith("_max") else f"{key}_mean": max(v) if key.endswith("_max") else mean(v)
            for key, v in sorted(values.items())
        }

    return compute


AGREEMENT = ("jaccard_agreement", "embedding_agreement")


def undefined_agreement() -> MetricFn:
    """``<agreement>_undefined_rate``: the share of episodes (that did not raise) whose final round had too
    few voices for agreement (the value is null), for each agreement the graph's records carry. Their means
    leave those episodes out, so this rate says how many the mean stands for."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        finals = [r["metrics"] for r in _ok(records)]  # only the metrics: the records stay parsed one at a time
        out = {}
        for key in AGREEMENT:
            values = [m[key] for m in finals if key in m]
            if values:
                out[f"{key}_undefined_rate"] = sum(v is None or v != v for v in values) / len(values)
        return out

    return compute


def _scenario_counts(records: Sequence[Record]) -> dict[str, list[int]]:
    """scenario -> [converged, episodes]."""
    counts: dict[str, list[int]] = {}
    for r in records:
        count = counts.setdefault(r["scenario"], [0, 0])
        count[0] += converged(r)
        count[1] += 1
    return counts


def by_scenario() -> MetricFn:
    """Convergence rate per scenario, so a hard scenario cannot hide in the average."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        counts = _scenario_counts(records)
        return {f"scenario/{name}/convergence_rate": k / n for name, (k, n) in sorted(counts.items())}

    return compute


PASS_HAT_MAX_K = 10


def pass_hat() -> MetricFn:
    """``pass_hat/<k>``: pass^k over scenarios (metrics/passk.py), k from 1 to the fewest episodes any scenario
    had (at most 10): the chance that k episodes of one scenario all converge, averaged over scenarios."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        tasks = [(c, n) for c, n in _scenario_counts(records).values()]
        if not tasks:
            return {}
        top = min(PASS_HAT_MAX_K, min(n for _, n in tasks))
        return {f"pass_hat/{k}": mean_pass_hat_k(tasks, k) for k in range(1, top + 1)}

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
            out[f"{prefix}/convergence_rate"] = sum(converged(r) for r in rs) / len(rs)
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
    """Model calls and tokens per episode, failed episodes included (their calls were made; tokens 0 where no model
    reported any); parse failures and empty replies in all; the share of calls
    the call cache answered (only when some model had a cache); the share of episode time spent in
    model calls; and calls, tokens and seconds per episode for each role."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        out = {
            "llm_calls_mean": mean([r["usage"]["llm_calls"] for r in records]),
            "tokens_total_mean": mean([r["usage"]["tokens_total"] for r in records]),
            "parse_failures": float(sum(r["usage"].get("parse_failures", 0) for r in records)),
            "empty_replies": float(sum(r["usage"].get("empty_replies", 0) for r in records)),
        }
        lookups = sum(r["timings"].get(k, 0) for r in records for k in ("cache_lookups", "graph_cache_lookups"))
        if lookups:  # the run's models' calls and a graph's own (one used as it is)
            hits = sum(r["timings"].get(k, 0) for r in records for k in ("cache_hits", "graph_cache_hits"))
            out["cache_hit_rate"] = hits / lookups
        wall = sum(r["timings"]["episode_seconds"] for r in records)
        if wall > 0:
            out["llm_seconds_share"] = sum(r["timings"].get("llm_seconds", 0.0) for r in records) / wall
        roles = sorted({role for r in records for role in r["usage"].get("calls_by_role", {})})
        for role in roles:
            out[f"role/{role}/calls_mean"] = mean([r["usage"].get("calls_by_role", {}).get(role, 0) for r in records])
            out[f"role/{role}/tokens_mean"] = mean([r["usage"].get("tokens_by_role", {}).get(role, 0) for r in records])
            out[f"role/{role}/seconds_mean"] = mean(
                [r["timings"].get("llm_seconds_by_role", {}).get(role, 0.0) for r in records]
            )
        return out

    return compute


COMMON: tuple[Metric, ...] = (
    convergence,
    termination,
    episode_means,
    undefined_agreement,
    by_scenario,
    pass_hat,
    timings,
    usage,
)


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
    values: list[dict[str, list[float]]] = []  # by round index: key -> values
    reached: list[int] = []
    for r in _ok(records):
        for i, entry in enumerate(r["per_round"]):
            if i == len(values):
                values.append({})
                reached.append(0)
            reached[i] += 1
            for key, value in entry.items():
                if isinstance(value, (int, float)) and key != "round" and value == value:
                    values[i].setdefault(key, []).append(float(value))
    return [{k: mean(v) for k, v in row.items()} | {"episodes": float(n)} for row, n in zip(values, reached, strict=True)]
