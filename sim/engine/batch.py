"""The experiment driver: every selected graph, N seeded episodes, metrics, outputs, tracking.

Each episode's record is appended to ``<run>/episodes.jsonl`` once, when it finishes; the summary
is computed from slim copies (no transcripts or artifacts) and from the file streamed back, so
memory does not grow with transcripts.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from dialectica.metrics import Record
from dialectica.metrics import converged as is_converged
from dialectica.metrics.embedding import Embed
from dialectica.metrics.objective import penalised
from dialectica.metrics.summary import COMMON, aggregate, per_round_means, termination
from dialectica.sim import records as rec
from dialectica.sim.authoring import history
from dialectica.sim.authoring.params import ConfigError, did_you_mean
from dialectica.sim.config.scenarios import scenario_paths
from dialectica.sim.config.typed import GraphRun, RunConfig, flatten
from dialectica.sim.engine import checkpoint
from dialectica.sim.engine.budget import Spend
from dialectica.sim.engine.build import plan
from dialectica.sim.engine.episode import run_episode
from dialectica.sim.engine.figures import draw
from dialectica.sim.engine.inflight import ordered_map
from dialectica.sim.engine.progress import EpisodeBar, bar
from dialectica.sim.secrets import install_logging, scrub, scrub_tree
from dialectica.sim.tracking.runs import Tracker
from dialectica.sim.tracking.store import mlflow_ui_url
from dialectica.sim.tracking.traces import EpisodeTraces, trace_url
from dialectica.sim.view.topology import graph_topology

_log = logging.getLogger(__name__)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".partial")
    tmp.write_text(text)
    os.replace(tmp, path)


def _needs_embedder(cfg: RunConfig) -> bool:
    return any(run.spec.embeds or (cfg.embeddings and run.spec.agreement) for run in cfg.graphs)


def run_graph(
    run: GraphRun,
    cfg: RunConfig,
    embed: Embed | None,
    sink: Any,
    done: dict[int, Record] | None = None,
    store: history.Store | None = None,
    traces: EpisodeTraces | None = None,
    spend: Spend | None = None,
) -> rec.SlimRecords:
    """Runs ``cfg.episodes`` episodes of one graph, cycling through its scenarios, ``cfg.max_concurrency`` at
    once, appending each record to ``sink`` in episode order; episodes in ``done`` (slim records a killed run
    finished) are kept, not rerun; ``traces`` makes the episodes it picks MLflow traces; once ``spend`` says a
    budget is spent no episode starts, those in flight finish, and the records stop there.

    Returns:
        The slim records (no transcripts or artifacts) in episode order.
    """
    done = {i: r for i, r in (done or {}).items() if i < cfg.episodes}
    name = run.spec.name
    agreement = embed if cfg.embeddings and run.spec.agreement else None

    shown_bar = bar(name, cfg.episodes, "ep", enabled=cfg.progress)
    progress = EpisodeBar(shown_bar)
    shown = [progress] if cfg.progress else []
    kept = cfg.checkpoints if store is not None else False
    source = history.open_source(run.fork.run) if run.fork is not None and run.fork.turn > 0 else None

    def play(index: int) -> rec.EpisodeRecord:
        keeps = kept is True or (not isinstance(kept, bool) and index in kept)
        keep = history.Keeping(
            history.thread_of(name, index), store if keeps else None, source, None if run.spec.play else run.spec.turns
        )
        planned, kept_here = plan(run, cfg, index), keep if keeps or source else None

        def episode(callbacks: list[Any]) -> rec.EpisodeRecord:
            return run_episode(run.spec, run.params, planned, embed, agreement, kept_here, [*shown, *callbacks])

        return episode([]) if traces is None else traces.play(index, episode, rec.as_written)

    starts = (i for i in range(cfg.episodes) if i not in done and not (spend is not None and spend.spent()))
    played = ordered_map(play, starts, cfg.max_concurrency)
    slims = rec.SlimRecords()
    converged = errors = 0
    for index in range(cfg.episodes):
        if index in done:
            slim = done[index]
        else:
            record = next(played, None)
            if record is None:  # a budget is spent: the episodes in flight were the last
                break
            slim = rec.append(sink, record)
            if spend is not None:
                spend.add(slim)
        slims.add(slim)
        converged += is_converged(slim)
        errors += slim["termination_reason"] == "error"
        progress.show(converged=f"{converged / len(slims):.0%}", errors=errors, resumed=len(done))
        shown_bar.update(1)
    shown_bar.close()
    if source is not None:
        source.close()
    return slims


def _claim(sink: Any, out_dir: Path) -> None:
    """Holds the run directory for this process: two processes writing one directory would mix records."""
    import fcntl

    try:
        fcntl.flock(sink.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ConfigError(
            f"another dialectica process is writing to {out_dir}; choose another hydra.run.dir "
            "(or hydra.sweep.dir), or wait for it to finish"
        ) from None


def _changed_endings(run: GraphRun, slims: rec.SlimRecords) -> list[int]:
    """A replay's episodes whose ending differs from the original's (each gets a page: the fork, side by side)."""
    if run.fork is None:
        return []
    before = {
        int(r["episode"]): r["termination_reason"]
        for r in rec.read(Path(run.fork.run) / rec.FILE, run.spec.name, keep=False)
    }
    return [
        int(r["episode"]) for r in slims if before.get(int(r["episode"]), r["termination_reason"]) != r["termination_reason"]
    ]


def _pages(run: GraphRun, cfg: RunConfig, slims: rec.SlimRecords, episodes: Path, traces: dict[int, str]) -> list[Path]:
    if not cfg.view.enabled:
        return []
    from dialectica.sim.view.registry import view_for  # lazy: start-up (16 ms)
    from dialectica.sim.view.write import write_graph_pages  # lazy: start-up (16 ms)

    changed = _changed_endings(run, slims)
    options = replace(cfg.view, metric=cfg.view.metric or view_for(run.spec.name).metric) if changed else cfg.view
    return write_graph_pages(
        slims,
        cfg.out_dir / run.spec.name / "view",
        options,
        graph_topology(run.spec),
        full=rec.GraphRecords(episodes, run.spec.name).pick,
        episodes=changed or None,
        traces=traces,
        asked="ending changed",
    )


def run_experiment(cfg: RunConfig, embed: Embed | None = None, echo: Callable[[str], None] = print) -> dict[str, Any]:
    """Runs every graph of ``cfg``, appending to ``episodes.jsonl`` and writing ``summary.json`` in ``cfg.out_dir``.

    ``summary.json`` is written last, so its presence means the run finished. The embedding model is
    loaded only when a graph of the run can use it.
    """
    install_logging()  # every log record scrubbed of the run's secrets
    cfg.out_dir.mkdir(parents=True, exist_ok=True)
    episodes = cfg.out_dir / rec.FILE
    with episodes.open("a") as sink:
        _claim(sink, cfg.out_dir)
        if not cfg.resume:  # a run of this directory is not replaced without a word
            checkpoint.refuse_earlier(cfg.out_dir)
        if embed is None and _needs_embedder(cfg):
            from dialectica.sim.engine.embedding import Embedder  # lazy: its import costs seconds

            embed = Embedder(cfg.embedding_cache)
            if cfg.embedding_cache is None or not cfg.embedding_cache.is_file():  # cold: every text is new
                took = embed.load()  # before the first episode, whose time would otherwise hold it
                if took is not None:
                    echo(f"embedding model loaded in {took:.1f}s")
        checkpoint.record(cfg.out_dir, cfg.resolved, cfg.resume)
        tracker = Tracker(cfg.tracking)
        summary: dict[str, Any] = {"graphs": {}, "seed": cfg.seed, "overrides": list(cfg.overrides)}
        done = checkpoint.done_episodes(episodes, cfg.resume)
        store = history.Store(cfg.out_dir / history.FILE) if cfg.checkpoints else None
        spend = Spend(cfg.budget)
        for run in cfg.graphs:
            if spend.spent():  # nothing of this graph starts; resume=true with a larger budget runs it
                break
            kept = (
                checkpoint.finished_graph(cfg.out_dir, run.spec.name, cfg.episodes, done.get(run.spec.name, {}))
                if cfg.resume
                else None
            )
            if kept is not None:
                echo(f"{run.spec.name}: finished before, kept (resume=true)")
            summary["graphs"][run.spec.name] = kept or _run_one(
                run, cfg, embed, sink, done.get(run.spec.name), tracker, episodes, echo, store, spend
            )
        if spend.spent():
            summary["stopped_by"] = f"budget.{spend.spent()}"
        if store is not None:
            store.close()
    if cfg.objective:
        values = [entry["metrics"] for entry in summary["graphs"].values()]
        _check_objective(cfg.objective, values)
        for entry in summary["graphs"].values():  # each graph's own, for a sweep's table per graph
            entry["objective"] = penalised(entry["metrics"], **cfg.objective)
        summary["objective"] = sum(penalised(v, **cfg.objective) for v in values) / len(values)
        _log_objective(tracker, summary)
    _write_atomic(cfg.out_dir / "summary.json", json.dumps(scrub_tree(summary), indent=2))
    return summary


def _log_objective(tracker: Tracker, summary: dict[str, Any]) -> None:
    """The objective as a metric of each graph's MLflow run, so that a study's trials rank by it there too; best
    effort: a store that cannot take it costs a warning, not the run."""
    runs = [entry["mlflow_run_id"] for entry in summary["graphs"].values() if entry.get("mlflow_run_id")]
    if not runs:
        return
    try:
        client, _ = tracker.connect()
        for run_id in runs:
            client.log_metric(run_id, "objective", float(summary["objective"]))
    except Exception as exc:  # noqa: BLE001 - the run's records and summary are what matter
        _log.warning("the objective was not logged to MLflow: %s: %s", type(exc).__name__, exc)


def _check_objective(objective: dict[str, Any], values: list[dict[str, Any]]) -> None:
    """A metric the objective names that no graph of the run logged, close to one it did, is a typo, not a zero;
    one close to none (a metric no episode could give this time, left out of the summary) is warned of and counts 0.
    The objective is not in the run's fingerprint, so the run resumes with it corrected (resume=true).

    Raises:
        ConfigError: naming ``objective.<key>``, the closest metric and the valid ones (before summary.json).
    """
    logged = {name for metrics in values for name in metrics}
    for key in ("metric", "floor_metric"):
        name = objective.get(key)
        if name is None or name in logged:
            continue
        hint = did_you_mean(name, logged)
        if hint:
            shown = sorted(n for n in logged if "/" not in n)
            raise ConfigError(
                f"objective.{key}={name} is not a metric this run logged{hint}; valid: {', '.join(shown)}; "
                "rerun with it corrected and resume=true (the episodes are kept)"
            )
        _log.warning("objective.%s=%s: no graph of this run logged it; it counts as 0", key, name)


TRACES = "traces.json"  # <graph>/traces.json: the MLflow experiment and each traced episode's trace id


def _traces(
    run: GraphRun, cfg: RunConfig, tracker: Tracker, run_id: str | None, run_dir: str, done: dict[int, Record] | None
) -> EpisodeTraces | None:
    """The graph's episodes that ``traces=`` picks (less those a resumed run kept), traced into its MLflow run."""
    if run_id is None:
        return None
    # a model is called: the run's (llm=), or a graph's own that its factory takes as an argument (a model built
    # inside a graph's nodes cannot be seen before it runs: traces=all traces those)
    models = cfg.voices.settings.backend != "scripted" or run.spec.own_models
    picks = cfg.tracking.traces.picks(cfg.episodes, cfg.seed, models)
    picks -= set(done or {})
    if not picks:
        return None
    _, experiment_id = tracker.connect()
    digest = checkpoint.digest(graph_config(run, cfg))  # as `dialectica label` computes it from config.json
    return EpisodeTraces(cfg.tracking.uri, experiment_id, run_id, frozenset(picks), run_dir, digest)


def graph_config(run: GraphRun, cfg: RunConfig) -> dict[str, Any]:
    """The graph's resolved config as ``<graph>/config.json`` holds it (secrets scrubbed)."""
    config: dict[str, Any] = scrub_tree(cfg.resolved | {"graph": {"name": run.spec.name, **run.raw}})
    return config


def _say_unplayed(name: str, episodes: int, scenarios: int, echo: Callable[[str], None]) -> None:
    """Fewer episodes than scenarios leave some unplayed (episodes take the scenarios in turn): said."""
    if episodes < scenarios:
        echo(
            f"{name}: episodes={episodes} plays the first {episodes} of its {scenarios} scenarios (they take turns); "
            f"episodes={scenarios} plays each once"
        )


def _run_one(
    run: GraphRun,
    cfg: RunConfig,
    embed: Embed | None,
    sink: Any,
    done: dict[int, Record] | None,
    tracker: Tracker,
    episodes: Path,
    echo: Callable[[str], None],
    store: history.Store | None = None,
    spend: Spend | None = None,
) -> dict[str, Any]:
    name = run.spec.name
    tags = {
        "graph": name,
        "participants": cfg.participants,
        "seed": str(cfg.seed),
        "episodes": str(cfg.episodes),
        "run_dir": str(cfg.out_dir.resolve()),
    }
    if run.fork is not None:  # the MLflow run of the episodes it forks (dialectica replay)
        tags |= run.fork.tags(name)
    if cfg.resume:
        tracker.end_stale(tags["run_dir"], name)
    checkpoint.mark_done(cfg.out_dir / name, done=False)  # an earlier run's marker in this folder
    _say_unplayed(name, cfg.episodes, len(run.scenarios), echo)
    note = _note(run, cfg, tags["run_dir"])
    kept: dict[str, Any] = {}  # the graph's entry, once its episodes and files are on disk
    try:
        t0, t1, t2, t_out, t3 = _run_logged(run, cfg, embed, sink, done, tracker, episodes, tags, note, kept, store, spend)
    except Exception as exc:
        if "entry" not in kept:
            raise
        t0, t1, t2, t_out = kept["times"]
        t3 = time.perf_counter()
        kept["entry"]["tracking_error"] = scrub(f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
    entry: dict[str, Any] = kept["entry"]
    if "tracking_error" in entry:  # the summary says why its MLflow run is incomplete; resume logs it again
        entry["phase_seconds"] = _phases(t0, t1, t2, t_out, t3)
        _write_summary(cfg.out_dir / name, name, entry)
    total = t3 - t0
    echo(
        f"{name}: {total:.1f}s = episodes {t1 - t0:.1f}s ({(t1 - t0) / total:.0%}), metrics {t2 - t1:.1f}s, "
        f"outputs {t_out - t2:.1f}s, tracking {t3 - t_out:.1f}s"
    )
    return entry


def _note(run: GraphRun, cfg: RunConfig, run_dir: str) -> str:
    """The graph's MLflow run description: what it plays, the command, and what each of its endings means."""
    scenarios = [s["name"] for s in run.scenarios]
    played = scenarios[: cfg.episodes]  # episodes take the scenarios in turn
    over = (
        f"{len(scenarios)} scenarios"
        if len(played) == len(scenarios)
        else f"the first {len(played)} of its {len(scenarios)} scenarios"
    )
    note = (
        f"{run.spec.name}: {cfg.episodes} episodes over {over} ({', '.join(played)}), "
        f"{cfg.participants} participants, seed {cfg.seed}. `dialectica {' '.join(cfg.overrides)}`, records in {run_dir}."
    )
    endings = run.spec.endings()
    if endings:  # what each termination/<reason> metric counts
        marks = {reason: " (converged)" if run.spec.converges(reason) else "" for reason in endings}
        note += "\n\nEndings (convergence_rate counts those marked converged):\n" + "\n".join(
            f"- `{reason}`{marks[reason]}: {meaning}" for reason, meaning in endings.items()
        )
    return note


def _run_logged(
    run: GraphRun,
    cfg: RunConfig,
    embed: Embed | None,
    sink: Any,
    done: dict[int, Record] | None,
    tracker: Tracker,
    episodes: Path,
    tags: dict[str, str],
    note: str,
    kept: dict[str, Any],
    store: history.Store | None = None,
    spend: Spend | None = None,
) -> tuple[float, float, float, float, float]:
    """The graph's episodes, files and MLflow run; ``kept`` gets its summary entry and phase times as soon as the
    files are on disk, so that a tracking failure after that point loses nothing."""
    name = run.spec.name
    with tracker.run(f"{name} {cfg.tracking.label}".strip(), tags, note) as log:
        _log_datasets(log, run)
        t0 = time.perf_counter()
        graph_dir = cfg.out_dir / name
        graph_dir.mkdir(exist_ok=True)
        traces = _traces(run, cfg, tracker, log.run_id, tags["run_dir"], done)
        slims = run_graph(run, cfg, embed, sink, done, store, traces, spend)
        traced = traces.finish() if traces is not None else {}
        t1 = time.perf_counter()
        own = lambda: termination(run.spec.endings())  # noqa: E731 - the graph's endings, not the whole vocabulary
        values = aggregate(slims, (*(m for m in COMMON if m is not termination), *run.spec.metrics, own))
        by_round = per_round_means(slims)
        t2 = time.perf_counter()
        files = (
            draw(name, slims, by_round, rec.GraphRecords(episodes, name), graph_dir, run.spec.figures)
            if cfg.view.enabled
            else []
        )
        links = _trace_links(graph_dir, cfg, traces, traced)
        pages = _pages(run, cfg, slims, episodes, links)
        config = graph_config(run, cfg)
        (graph_dir / "config.json").write_text(json.dumps(config, indent=2))
        entry = _entry(values, log.run_id, cut_short=len(slims) < cfg.episodes, spend=spend, traces=traces, traced=traced)
        t_out = time.perf_counter()
        kept.update(entry=entry, times=(t0, t1, t2, t_out))
        if "stopped_by" in entry:  # not what was asked for: the run says so and does not end FINISHED
            log.stopped(entry["stopped_by"], _stopped_note(entry["stopped_by"], len(slims), cfg.episodes, note))
        log.params({k: v for k, v in flatten(config).items() if run.fork or not k.startswith("replay.")})  # a replay's own
        log.metrics(values)
        log.metric_steps(by_round, "by_round")
        _log_files(log, episodes, name, [*files, graph_dir / "config.json"], pages)
        t3 = time.perf_counter()
        entry["phase_seconds"] = _phases(t0, t1, t2, t_out, t3)
        log.artifact(_write_summary(graph_dir, name, entry))  # once, with its phase times
    if "stopped_by" not in entry:  # its MLflow run is complete: resume keeps the graph whole
        checkpoint.mark_done(graph_dir)
    return t0, t1, t2, t_out, t3


def _stopped_note(reason: str, played: int, asked: int, note: str) -> str:
    """The description of a run a budget cut short: how many of its episodes were played, then its own note."""
    return (
        f"**Stopped by {reason} after {played} of {asked} episodes**: its metrics are those {played} episodes'. The "
        f"same command with resume=true and a larger {reason} (or null) plays the rest, as a new run.\n\n{note}"
    )


def _log_datasets(log: Any, run: GraphRun) -> None:
    """The graph's scenarios as the MLflow run's dataset: its one file, or each scenario's file in the folder."""
    name = run.spec.name
    scenarios = [s["name"] for s in run.scenarios]
    if run.datasets.is_file():  # one file of scenarios
        log.dataset(f"{name} scenarios", [run.datasets], str(run.datasets))
    else:
        paths = scenario_paths(run.datasets)
        log.dataset(f"{name} scenarios", [paths[s] for s in scenarios if s in paths], str(run.datasets / "scenarios"))


def _trace_links(graph_dir: Path, cfg: RunConfig, traces: EpisodeTraces | None, traced: dict[int, str]) -> dict[int, str]:
    """Each traced episode's link to its MLflow trace, the trace ids written to ``<graph>/traces.json``."""
    if not (traced and traces is not None):
        return {}
    before = json.loads((graph_dir / TRACES).read_text()) if (graph_dir / TRACES).is_file() else {}
    if before.get("experiment_id") == traces.experiment_id:  # a resumed run: the kept episodes' traces stay listed
        traced = {int(i): t for i, t in before.get("traces", {}).items()} | traced
    (graph_dir / TRACES).write_text(json.dumps({"experiment_id": traces.experiment_id, "traces": traced}, indent=1))
    ui = mlflow_ui_url(cfg.tracking.uri)
    return {i: trace_url(ui, traces.experiment_id, t) for i, t in traced.items()}


def _entry(
    values: dict[str, Any],
    run_id: str | None,
    *,
    cut_short: bool,
    spend: Spend | None,
    traces: EpisodeTraces | None,
    traced: dict[int, str],
) -> dict[str, Any]:
    """The graph's summary entry: its metrics and MLflow run, the budget that cut it short, its traces' counts."""
    entry: dict[str, Any] = {"metrics": rec.json_safe(values), "mlflow_run_id": run_id}
    if cut_short and spend is not None:  # cut short: the summary says by which budget
        entry["stopped_by"] = f"budget.{spend.spent()}"
    if traces is not None:
        entry["traces"] = {"logged": len(traced), "failed": traces.failures}
    return entry


def _log_files(log: Any, episodes: Path, name: str, files: list[Path], pages: list[Path]) -> None:
    """The graph's records (where the MLflow run exists), figures, config and pages as the run's artifacts."""
    if log.run_id is not None:
        with tempfile.TemporaryDirectory() as tmp:
            log.artifact(rec.write_selected(episodes, name, Path(tmp) / rec.FILE))
    for path in files:
        log.artifact(path)
    for path in pages:
        log.artifact(path, "view")


def _phases(t0: float, t1: float, t2: float, t_out: float, t3: float) -> dict[str, float]:
    return {"episodes": t1 - t0, "metrics": t2 - t1, "outputs": t_out - t2, "tracking": t3 - t_out}


def _write_summary(graph_dir: Path, name: str, entry: dict[str, Any]) -> Path:
    path = graph_dir / "summary.json"
    path.write_text(json.dumps({"graphs": {name: entry}}, indent=2))
    return path


def raised_episodes(summary: dict[str, Any], max_error_rate: float, out_dir: Path) -> tuple[list[str], list[str]]:
    """One line per graph some of whose episodes raised, naming the records file and the first traceback's
    exception: those past ``max_error_rate`` (the command line exits 1 on them, ``evaluate`` raises), and those
    within it (the command line warns; the other episodes count)."""
    past: list[str] = []
    within: list[str] = []
    for name, entry in summary.get("graphs", {}).items():
        metrics = entry.get("metrics", {})
        n, rate = int(metrics.get("episodes", 0)), metrics.get("error_rate", 0.0)
        if n and rate:
            what = "every episode raised" if rate == 1 else f"{round(rate * n)} of {n} episodes raised"
            first = next((r["error"] for r in rec.read(out_dir / rec.FILE, name, keep=False) if r.get("error")), "")
            last = f"; the first: {rec.exception_line(first)}" if first.strip() else ""
            over = rate > max_error_rate
            (past if over else within).append(
                f"graph {name}: {what} (error_rate {rate:.2f} {'>' if over else '<='} max_error_rate "
                f"{max_error_rate}){last}; the tracebacks are the 'error' fields of {out_dir / rec.FILE}"
            )
    return past, within


TABLE_KEYS = (
    "episodes",
    "convergence_rate",
    "convergence_rate_ci95_low",
    "convergence_rate_ci95_high",
    "rounds_mean",
    "depth_mean",
    "jaccard_agreement_mean",
    "embedding_agreement_mean",
    "error_rate",
    "episode_seconds_p50",
)


def _cell(value: float | None) -> str:
    """A table cell: whole numbers as they are (2000, not 2e+03), others to three significant digits."""
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:.3g}"


def format_table(summary: dict[str, Any]) -> str:
    """A fixed-width table of the headline metrics, one row per graph; a metric no graph has is left out."""
    keys = [k for k in TABLE_KEYS if any(k in entry["metrics"] for entry in summary["graphs"].values())]
    header = ["graph", *keys]
    rows = [[name, *(entry["metrics"].get(k) for k in keys)] for name, entry in summary["graphs"].items()]
    cells = [header] + [[r[0]] + [_cell(v) for v in r[1:]] for r in rows]
    widths = [max(len(str(row[i])) for row in cells) for i in range(len(header))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells)
