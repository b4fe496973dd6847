"""Sweeps: one MLflow parent run per multirun, created before any job starts (with the store, so
parallel jobs cannot race to create it); each job's runs nest under it; at the end the parent gets a
comparison table of the configs with pass^k and a mark on those that differ from the best.
"""

from __future__ import annotations

import json
import logging
import os
from collections import defaultdict
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import yaml
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from dialectica.metrics import converged as is_converged
from dialectica.metrics.passk import mean_pass_hat_k
from dialectica.metrics.stats import wilson_interval
from dialectica.sim import secrets
from dialectica.sim.authoring.plots import save, subplots
from dialectica.sim.config.precheck import earlier_jobs

if TYPE_CHECKING:
    import pandas as pd

_log = logging.getLogger(__name__)
PARENT_FILE = "mlflow_parent.json"
INTEGRAL = ("episodes", "converged", "seeds", "pairs", "decided_at")  # counts, shown without decimals
HYDRA_FILE = "multirun.yaml"  # Hydra's copy of the sweep's config and overrides, scrubbed once written


def job_files(sweep_dir: Path, name: str) -> list[Path]:
    """The jobs' ``name`` files of a sweep, in the order Hydra numbered the jobs (2 before 10)."""
    return sorted(sweep_dir.glob(f"*/{name}"), key=lambda p: (len(p.parent.name), p.parent.name))


def _tracking(config: DictConfig) -> dict[str, Any]:
    values = OmegaConf.to_container(config.tracking, resolve=True)
    assert isinstance(values, dict), f"tracking must be a mapping, got {values!r}"
    return cast(dict[str, Any], values)


def parent_run_id(sweep_dir: Path) -> str | None:
    """The parent run a job of the sweep in ``sweep_dir`` nests under, if the sweep is tracked."""
    path = sweep_dir / PARENT_FILE
    return json.loads(path.read_text())["run_id"] if path.exists() else None


def config_keys(jobs: list[list[str]], swept: Collection[str] = ()) -> list[str]:
    """Each job's configuration as the overrides that vary across the sweep, seed left out so that
    repeated seeds pool into one row; a key that says how a job ran (``resume``, ``budget.*``, ``max_concurrency``)
    only where the sweep swept it (``swept``: ``max_concurrency=1,4``), not where jobs resumed with another value."""
    from dialectica.sim.config.typed import run_control  # lazy: start-up (omegaconf, yaml)

    jobs = [[o.lstrip("+") for o in overrides] for overrides in jobs]  # ++key=value (set from Python): key=value
    values: dict[str, set[str]] = defaultdict(set)
    for overrides in jobs:
        for o in overrides:
            key, _, value = o.partition("=")
            values[key].add(value)
    varying = {k for k, v in values.items() if len(v) > 1 and k != "seed" and (not run_control(k) or k in swept)}
    return [" ".join(sorted(o for o in overrides if o.partition("=")[0] in varying)) or "(defaults)" for overrides in jobs]


def comparison(sweep_dir: Path, alpha: float = 0.05) -> pd.DataFrame:
    """One row per (graph, configuration): pooled convergence with its Wilson interval, pass^1 to pass^k
    over scenarios (k = the number of seeds), and its comparison with the graph's best configuration (the highest
    objective where the jobs report one, else the highest convergence rate):
    the difference with its 95% interval and the p-value, paired (exact McNemar) over the episodes the two
    share by seed and scenario, else unpaired (Fisher), Holm-corrected over the graph's comparisons;
    ``differs_from_best`` when the corrected p < alpha (metrics/paired.py). These are fixed-sample statistics;
    ``decided_at`` is the pairs after which an anytime-valid test decided, at the level a sequential sweep's
    ``rule=best`` tests each pair (Bonferroni over every pair of configurations): where such a race could have
    stopped that comparison (NaN: not decided)."""
    import pandas as pd

    from dialectica.sim import records  # lazy: start-up (pydantic)

    pooled: dict[tuple[str, str], dict[str, Any]] = {}
    paths = job_files(sweep_dir, "summary.json")
    summaries = [json.loads(p.read_text()) for p in paths]
    keys = config_keys([s.get("overrides", []) for s in summaries], swept_in(sweep_dir))
    for summary_path, summary, key_overrides in zip(paths, summaries, keys, strict=True):
        for record in records.read(summary_path.parent / records.FILE, keep=False):
            row = pooled.setdefault(
                (record["graph"], key_overrides),
                {"tasks": defaultdict(lambda: [0, 0]), "seeds": set(), "objectives": {}, "outcomes": {}},
            )
            task = row["tasks"][record["scenario"]]
            converged = is_converged(record)
            # episode first: pairs in the order a run plays them, which decided_at counts in
            row["outcomes"][(record["episode"], record["seed"], record["scenario"])] = converged
            task[0] += converged
            task[1] += 1
            row["seeds"].add(summary.get("seed"))
            scored = (summary.get("graphs") or {}).get(record["graph"], {}).get("objective", summary.get("objective"))
            if scored is not None:  # the graph's own objective; a summary from before them: the run's
                row["objectives"][str(summary_path.parent)] = scored
    rows, outcomes = [], {}
    most_seeds = max((len(d["seeds"]) for d in pooled.values()), default=1)
    for (graph, config), data in pooled.items():
        outcomes[graph, config] = data["outcomes"]
        c = sum(t[0] for t in data["tasks"].values())
        n = sum(t[1] for t in data["tasks"].values())
        low, high = wilson_interval(c, n)
        k = max(1, len(data["seeds"]))
        rows.append(
            {
                "graph": graph,
                "config": config,
                "episodes": n,
                "converged": c,
                "convergence_rate": c / n,
                "ci95_low": low,
                "ci95_high": high,
                "seeds": k,
                **{f"pass^{j}": mean_pass_hat_k(data["tasks"].values(), j) for j in range(1, most_seeds + 1)},
                "objective": (
                    sum(data["objectives"].values()) / len(data["objectives"]) if data["objectives"] else float("nan")
                ),
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    # the best first: by the objective where the sweep had one (an Optuna study's, so the table's best is the
    # study's), then by convergence; stable: configurations that tie stay in the jobs' order
    minimize = _direction(sweep_dir) == "minimize"
    frame = frame.sort_values(
        ["graph", "objective", "convergence_rate"], ascending=[True, minimize, False], kind="stable", na_position="last"
    )
    frame = frame.reset_index(drop=True)
    return frame.join(_against_best(frame, outcomes, alpha))


def _direction(sweep_dir: Path) -> str:
    """The Optuna sweeper's ``direction`` from the sweep's ``multirun.yaml`` (``maximize`` where none is given)."""
    path = sweep_dir / HYDRA_FILE
    if not path.is_file():
        return "maximize"
    found = OmegaConf.select(
        OmegaConf.load(path), "hydra.sweeper.direction", default="maximize", throw_on_resolution_failure=False
    )
    return str(found).lower()


def _against_best(frame: pd.DataFrame, outcomes: dict[tuple[str, str], dict[Any, bool]], alpha: float) -> pd.DataFrame:
    """Each row against its graph's best row (the first): test, pairs, difference, interval, p, Holm's p."""
    import pandas as pd

    from dialectica.metrics.paired import compare, holm  # lazy: start-up (scipy, numpy)

    columns = {
        name: [float("nan")] * len(frame)
        for name in ("pairs", "diff_vs_best", "diff_ci95_low", "diff_ci95_high", "p_vs_best", "p_holm", "decided_at")
    }
    tests = ["best"] * len(frame)
    for _, rows in frame.groupby("graph", sort=False):
        best = outcomes[rows.iloc[0]["graph"], rows.iloc[0]["config"]]
        others = list(rows.index[1:])
        configurations = len(others) + 1  # the anytime-valid test at the race's level: Bonferroni over every pair
        delta = alpha / max(1, configurations * (configurations - 1) // 2)  # (dialectica sequential rule=best)
        results = [compare(outcomes[frame.at[i, "graph"], frame.at[i, "config"]], best, delta=delta) for i in others]
        for i, result, p_holm in zip(others, results, holm([r.p for r in results]), strict=True):
            tests[i] = result.test
            for name, value in (
                ("pairs", result.pairs),
                ("diff_vs_best", result.diff),
                ("diff_ci95_low", result.low),
                ("diff_ci95_high", result.high),
                ("p_vs_best", result.p),
                ("p_holm", p_holm),
                ("decided_at", float("nan") if result.decided_at is None else result.decided_at),
            ):
                columns[name][i] = value
    table = pd.DataFrame({"test": tests, **columns}, index=frame.index)
    table["differs_from_best"] = table["p_holm"] < alpha
    return table


def objective_plot(table: pd.DataFrame, path: Path) -> Path:
    """The objective against each swept parameter, one panel per parameter (trials as points)."""

    rows = [
        dict(item.split("=", 1) for item in config.split()) | {"objective": obj}
        for config, obj in zip(table["config"], table["objective"], strict=True)
        if config != "(defaults)"
    ]
    params = sorted({k for row in rows for k in row if k != "objective"})
    fig, axes = subplots(1, max(1, len(params)), figsize=(4.2 * max(1, len(params)), 3.4), dpi=110, squeeze=False)
    for ax, param in zip(axes[0], params, strict=False):
        points = [(float(r[param]), r["objective"]) for r in rows if param in r]
        ax.scatter([p[0] for p in points], [p[1] for p in points], color="#4c72b0")
        ax.set_xlabel(param.removeprefix("graph."))
        ax.set_ylabel("objective")
        ax.grid(alpha=0.3)
    return save(fig, path)


def shown(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as text to read: columns with no value dropped, counts as integers, other numbers to 3 decimals,
    p-values below 0.001 as ``<0.001``, an empty cell where a row has no value (the best has no difference)."""

    def cell(column: str, value: Any) -> str:
        if isinstance(value, float):
            if value != value:
                return ""
            if column.startswith("p_") and 0 <= value < 0.001:
                return "<0.001"
            if value.is_integer() and column in INTEGRAL:
                return str(int(value))
            return f"{value:.3f}"
        return str(value)

    import pandas as pd  # lazy: start-up

    kept = frame.dropna(axis="columns", how="all")
    return pd.DataFrame({c: [cell(str(c), v) for v in kept[c]] for c in kept.columns})


def markdown(frame: pd.DataFrame) -> str:
    """A pipe table of ``frame`` as ``shown``, for the sweep folder and the parent run's artifact."""
    text = shown(frame)
    lines = ["| " + " | ".join(map(str, text.columns)) + " |", "|" + "---|" * len(text.columns)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in text.itertuples(index=False)]) + "\n"


def _scrub_secrets(config: DictConfig) -> None:
    """Registers the sweep's secrets and scrubs them from log records and from Hydra's ``multirun.yaml``
    (written verbatim by the sweeper after ``on_multirun_start``)."""
    secrets.collect(OmegaConf.to_container(config, resolve=False), os.environ)
    secrets.install_logging()
    path = Path(config.hydra.sweep.dir) / HYDRA_FILE
    if path.exists():
        text = path.read_text()
        if secrets.scrub(text) != text:  # scrubbed as values: a bare *** would read as a YAML alias
            tmp = path.with_name(f".{HYDRA_FILE}.{os.getpid()}")
            tmp.write_text(yaml.safe_dump(secrets.scrub_tree(yaml.safe_load(text)), sort_keys=False))
            os.replace(tmp, path)


def swept_in(sweep_dir: Path) -> list[str]:
    """The keys the sweep in ``sweep_dir`` varied, as its last command gave them (``multirun.yaml``); none where
    the folder is not a Hydra sweep's."""
    path = sweep_dir / HYDRA_FILE
    if not path.is_file():
        return []
    config = OmegaConf.load(path)
    return swept_keys(config) if isinstance(config, DictConfig) and OmegaConf.select(config, "hydra.overrides") else []


def swept_keys(config: DictConfig) -> list[str]:
    """The keys a sweep varies: its sweep overrides (``a=1,2``, ``range(...)``) and an Optuna sweeper's params."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(config.hydra.overrides.task))
    keys = [o.get_key_element().lstrip("+~") for o in parsed if o.is_sweep_override()]
    params = OmegaConf.select(config, "hydra.sweeper.params")
    return keys + [str(k) for k in (params or {}) if str(k) not in keys]


def _short(text: str) -> str:
    return text.lstrip("+~").removeprefix("graph.")


def job_label(sweep_dir: Path, overrides: list[str]) -> str:
    """What tells a job from the sweep's others, e.g. ``convergence_threshold=0.7 seed=1`` (its MLflow run name)."""
    path = sweep_dir / PARENT_FILE
    swept = json.loads(path.read_text()).get("swept", []) if path.exists() else []
    values = {o.lstrip("+~").partition("=")[0]: o.partition("=")[2] for o in overrides}
    return " ".join(f"{_short(k)}={values[k]}" for k in swept if k in values)


class SweepCallback(Callback):
    """Hydra callback (``hydra.callbacks.sweep`` in ``conf/config.yaml``); with ``resume=true`` a sweep
    started again in the same directory keeps its parent run."""

    def on_job_start(self, config: DictConfig, **kwargs: Any) -> None:
        _scrub_secrets(config)

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        _scrub_secrets(config)
        tracking = _tracking(config)
        if not tracking.get("enabled"):
            return
        from dialectica.sim.config.typed import TrackingConfig  # lazy: start-up (sqlite3)
        from dialectica.sim.tracking.runs import Tracker  # lazy: start-up (sqlite3)

        sweep_dir = Path(config.hydra.sweep.dir)
        sweep_dir.mkdir(parents=True, exist_ok=True)
        tracker = Tracker(TrackingConfig(True, tracking["uri"], tracking["experiment"]))
        client, experiment_id = tracker.connect()  # creates the store now, before jobs race to
        from dialectica.sim.config.typed import redact_overrides  # lazy: start-up (sqlite3)
        from dialectica.sim.tracking.runs import source_tags  # lazy: start-up (sqlite3)

        overrides = redact_overrides(config.hydra.overrides.task)
        swept = swept_keys(config)
        keys = [o.lstrip("+~").partition("=")[0] for o in overrides]
        shown = [  # "sweep socratic_panel threshold=0.6,0.8", "sweep interview_optuna"
            o.partition("=")[2] if k in ("graph", "hparams_search") else _short(o)
            for k, o in zip(keys, overrides, strict=True)
            if k in {*swept, "graph", "hparams_search"}
        ]
        note = (
            f"A sweep of {', '.join(map(_short, swept)) or 'one configuration'}: "
            f"`dialectica -m {' '.join(overrides)}` in {sweep_dir}; each job is a child run."
        )
        name = secrets.scrub(" ".join(["sweep", *shown]))[:250]
        tags = secrets.scrub_tree({"overrides": " ".join(overrides), "mlflow.note.content": note})
        previous = parent_run_id(sweep_dir)
        if previous and not config.get("resume") and earlier_jobs(sweep_dir):  # its jobs refuse (the command line
            return  # refuses first, where it can read hydra.sweep.dir): the earlier sweep keeps its parent
        if previous and config.get("resume"):  # named and described by the command that resumes it (a value added)
            client.update_run(previous, "RUNNING", name=name)
            for key, value in tags.items():
                client.set_tag(previous, key, value)
            run_id = previous
        else:
            tags |= {**source_tags(), "sweep": "true", "sweep_dir": str(sweep_dir)}
            run_id = client.create_run(experiment_id, run_name=name, tags=tags).info.run_id
        (sweep_dir / PARENT_FILE).write_text(
            json.dumps({"run_id": run_id, "uri": secrets.scrub(tracking["uri"]), "swept": swept})
        )

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        _scrub_secrets(config)
        sweep_dir = Path(config.hydra.sweep.dir)
        table = comparison(sweep_dir)
        if not table.empty:
            counts = {c: table[c].astype("Int64") for c in INTEGRAL if c in table and (table[c].dropna() % 1 == 0).all()}
            table.assign(**counts).to_csv(sweep_dir / "comparison.csv", index=False)  # 12, not 12.0; blank for none
            (sweep_dir / "comparison.md").write_text(markdown(table))
            print(shown(table).to_string(index=False))
        parent = parent_run_id(sweep_dir)
        pages = sorted({p.relative_to(sweep_dir).parts[1] for p in sweep_dir.glob("*/*/view/index.html")})
        for graph in pages:  # one line however many jobs
            print(f"pages:   {sweep_dir}/<job>/{graph}/view/index.html")
        print(f"sweep:   {sweep_dir}\nreport:  dialectica report {sweep_dir}")
        if parent is None:
            return
        from dialectica.sim.tracking.store import mlflow_ui  # lazy: start-up (ssl, http)

        print(f"mlflow:  {mlflow_ui(_tracking(config)['uri'])}")
        from dialectica.sim.tracking.store import open_store  # lazy: start-up (ssl, http)

        tracking = _tracking(config)  # the file keeps the URI scrubbed of credentials
        client, _ = open_store(tracking["uri"], tracking["experiment"])
        if not table.empty:
            for name in ("comparison.csv", "comparison.md"):
                client.log_artifact(parent, str(sweep_dir / name))
            if table["objective"].notna().any():
                client.log_artifact(parent, str(objective_plot(table, sweep_dir / "objective.png")))
            for graph, row in table.groupby("graph").head(1).set_index("graph").iterrows():
                client.log_metric(parent, f"{graph}/best_convergence_rate", float(row["convergence_rate"]))
                client.set_tag(parent, f"{graph}/best_config", secrets.scrub(str(row["config"])))
        results = sweep_dir / "optimization_results.yaml"
        if results.exists():  # written by the Optuna sweeper
            client.log_artifact(parent, str(results))
            best = yaml.safe_load(results.read_text())
            for key, value in (best.get("best_params") or {}).items():
                client.log_param(parent, f"best.{key}", secrets.scrub(str(value)))
            if best.get("best_value") is not None:
                client.log_metric(parent, "best_objective", float(best["best_value"]))
        client.set_terminated(parent, "FINISHED")


def end_sweep(config: DictConfig, sweep_dir: Path, status: str = "FAILED") -> None:
    """Ends the running parent run of the sweep in ``sweep_dir`` with ``status``: a job that failed, was refused or
    was interrupted stops the sweep (its launcher raises), so its parent is not left RUNNING; ``resume=true`` sets it
    running again. A parent that is not running (an earlier sweep's) is left as it is. Best effort: a store that
    cannot be reached costs a warning, never the job's own error."""
    parent = parent_run_id(sweep_dir)
    try:
        tracking = _tracking(config)
        if parent is None or not tracking.get("enabled"):
            return
        from dialectica.sim.tracking.store import open_store  # lazy: start-up (ssl, http)

        client, _ = open_store(tracking["uri"], tracking["experiment"])
        if client.get_run(parent).info.status == "RUNNING":
            client.set_terminated(parent, status)
    except Exception as exc:  # noqa: BLE001 - the job's own error is what the user must see
        _log.warning("the sweep's parent run %s was left as it was: %s", parent, exc)
