"""The experiment driver: every selected graph, N seeded episodes, metrics, outputs, tracking."""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

import metrics.dialogue  # noqa: F401 - registers the tutoring metrics
import metrics.summary  # noqa: F401 - registers the aggregate metrics
import metrics.tribunal  # noqa: F401 - registers the tribunal metrics
from metrics.embedding import Embed, embedding_agreement, round_answers
from metrics.summary import COMMON, aggregate, per_round_means
from sim.config import GraphRun, RunConfig, flatten
from sim.episode import EpisodePlan, episode_seed, run_episode
from sim.plots import FIGURES, by_round_figure
from sim.tracking import Tracker
from sim.view.topology import graph_topology
from sim.view.write import write_graph_pages


def _json_safe(value: Any) -> Any:
    """NaN and infinities become null so the files are strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".partial")
    tmp.write_text(text)
    os.replace(tmp, path)


def _jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(_json_safe(r), sort_keys=True) + "\n" for r in records)


def _load_partial(path: Path) -> dict[int, dict[str, Any]]:
    """Episodes a killed run finished, by index; a last line cut short by the kill is dropped."""
    done: dict[int, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                break
            done[record["episode"]] = record
    return done


def run_graph(run: GraphRun, cfg: RunConfig, embed: Embed, partial: Path | None = None) -> list[dict[str, Any]]:
    """Runs ``cfg.episodes`` episodes of one graph, cycling through its scenarios.

    With ``partial``, each finished episode is appended there at once; with ``cfg.resume`` the episodes
    already in it are kept and only the rest run. Records go through JSON either way, so a resumed run
    and an uninterrupted one hold the same values.
    """
    plans = [
        EpisodePlan(run.spec.name, i, episode_seed(cfg.seed, run.spec.name, i), run.scenarios[i % len(run.scenarios)],
                    cfg.participants, cfg.failure_rate, cfg.datasets, cfg.voices)
        for i in range(cfg.episodes)
    ]
    done = _load_partial(partial) if partial is not None and cfg.resume else {}
    done = {i: r for i, r in done.items() if i < cfg.episodes}
    sink = None
    if partial is not None:
        _write_atomic(partial, _jsonl([done[i] for i in sorted(done)]))
        sink = partial.open("a")
    bar = tqdm(plans, desc=run.spec.name, unit="ep", disable=not cfg.progress, leave=True, dynamic_ncols=True)
    records = []
    try:
        for plan in bar:
            if plan.index in done:
                records.append(done[plan.index])
                continue
            line = _jsonl([run_episode(run.spec, run.params, plan, embed)])
            records.append(json.loads(line))
            if sink is not None:
                sink.write(line)
                sink.flush()
            converged = [r["termination_reason"] == "converged" for r in records]
            bar.set_postfix(converged=f"{sum(converged) / len(converged):.0%}",
                            errors=sum(r["termination_reason"] == "error" for r in records), resumed=len(done))
    finally:
        if sink is not None:
            sink.close()
    return records


def add_embedding_agreement(records: list[dict[str, Any]], embed: Embed) -> None:
    """Stores each round's embedding agreement in ``per_round`` and the last round's in ``metrics``."""
    for record, values in zip(records, embedding_agreement(records, embed)):
        by_round = dict(zip(round_answers(record), values))
        if not by_round or not record["per_round"]:
            continue
        for entry in record["per_round"]:
            entry["embedding_agreement"] = by_round.get(entry["round"], float("nan"))
        record["metrics"]["embedding_agreement"] = record["per_round"][-1]["embedding_agreement"]


def run_experiment(cfg: RunConfig, embed: Embed | None = None, echo: Callable[[str], None] = print) -> dict[str, Any]:
    """Runs every graph of ``cfg`` and writes ``episodes.jsonl`` and ``summary.json`` into ``cfg.out_dir``.

    ``summary.json`` is written last, so its presence means the run finished.
    """
    if embed is None:
        from sim.embedding import Embedder  # lazy: its import costs seconds

        embed = Embedder(cfg.embedding_cache)
    cfg.out_dir.mkdir(parents=True, exist_ok=True)
    tracker = Tracker(cfg.tracking)
    summary: dict[str, Any] = {"graphs": {}, "seed": cfg.seed, "overrides": list(cfg.overrides)}
    all_records: list[dict[str, Any]] = []
    for run in cfg.graphs:
        name = run.spec.name
        tags = {"graph": name, "participants": cfg.participants, "seed": str(cfg.seed), "episodes": str(cfg.episodes),
                "run_dir": str(cfg.out_dir.resolve())}
        if cfg.resume:
            tracker.end_stale(tags["run_dir"], name)
        with tracker.run(name, tags) as log:
            t0 = time.perf_counter()
            graph_dir = cfg.out_dir / name
            graph_dir.mkdir(exist_ok=True)
            records = run_graph(run, cfg, embed, graph_dir / "episodes.partial.jsonl")
            t1 = time.perf_counter()
            if cfg.embeddings:
                add_embedding_agreement(records, embed)
            values = aggregate(records, (*COMMON, *run.spec.metrics))
            by_round = per_round_means(records)
            t2 = time.perf_counter()
            (graph_dir / "episodes.jsonl").write_text(_jsonl(records))
            (graph_dir / "episodes.partial.jsonl").unlink(missing_ok=True)
            figure = by_round_figure(records, by_round, f"{name}: agreement and convergence by round",
                                     graph_dir / "by_round.png")
            extra = [FIGURES.get(name)(records, graph_dir) for name in ("node_times", *run.spec.figures)]
            views = write_graph_pages(records, graph_dir / "view", cfg.view, graph_topology(
                run.spec, run.params, run.scenarios[0], cfg.datasets)) if cfg.view.enabled else []
            (graph_dir / "config.json").write_text(json.dumps(cfg.resolved | {"graph": {"name": name, **run.raw}}, indent=2))
            entry = {"metrics": _json_safe(values), "mlflow_run_id": log.run_id}
            (graph_dir / "summary.json").write_text(json.dumps({"graphs": {name: entry}}, indent=2))
            t_out = time.perf_counter()
            log.params(flatten(cfg.resolved | {"graph": {"name": name, **run.raw}}))
            log.metrics(values)
            log.metric_steps(by_round, "by_round")
            extra += sorted(graph_dir.glob("argument_graph_episode*.json"))
            for path in (graph_dir / "episodes.jsonl", figure, *extra, graph_dir / "config.json", graph_dir / "summary.json"):
                log.artifact(path)
            for path in views:
                log.artifact(path, "view")
            t3 = time.perf_counter()
        entry["phase_seconds"] = {"episodes": t1 - t0, "metrics": t2 - t1, "outputs": t_out - t2, "tracking": t3 - t_out}
        summary["graphs"][name] = entry
        all_records += records
        total = t3 - t0
        echo(
            f"{name}: {total:.1f}s = episodes {t1 - t0:.1f}s ({(t1 - t0) / total:.0%}), metrics {t2 - t1:.1f}s, "
            f"outputs {t_out - t2:.1f}s, tracking {t3 - t_out:.1f}s"
        )
    if cfg.objective:
        from metrics.objective import penalised

        values = [entry["metrics"] for entry in summary["graphs"].values()]
        summary["objective"] = sum(penalised(v, **cfg.objective) for v in values) / len(values)
    _write_atomic(cfg.out_dir / "episodes.jsonl", _jsonl(all_records))
    _write_atomic(cfg.out_dir / "summary.json", json.dumps(summary, indent=2))
    return summary


TABLE_KEYS = ("episodes", "convergence_rate", "convergence_rate_ci95_low", "convergence_rate_ci95_high", "rounds_mean",
              "depth_mean", "jaccard_agreement_mean", "embedding_agreement_mean", "error_rate", "episode_seconds_p50")


def format_table(summary: dict[str, Any]) -> str:
    """A fixed-width table of the headline metrics, one row per graph."""
    header = ["graph", *TABLE_KEYS]
    rows = [[name, *(entry["metrics"].get(k) for k in TABLE_KEYS)] for name, entry in summary["graphs"].items()]
    cells = [header] + [[r[0]] + ["-" if v is None else f"{v:.3g}" for v in r[1:]] for r in rows]
    widths = [max(len(str(row[i])) for row in cells) for i in range(len(header))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(row, widths)) for row in cells)
