"""The graph runs of an MLflow experiment for analysis: ``dialectica.load_runs()``, one row per configuration and
seed, each counted once (what the analysis notebook plots)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.config.typed import run_control
from dialectica.sim.secrets import scrub_url

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_URI = "sqlite:///results/mlflow.db"
_COLUMNS = (
    "status",
    "run_id",
    "start_time",
    "tags.graph",
    "tags.seed",
    "tags.run_dir",
    "metrics.episodes",
    "metrics.convergence_rate",
)


def load_runs(
    tracking_uri: str | os.PathLike[str] = DEFAULT_URI, experiment: str = "dialectica", graph: str | None = None
) -> pd.DataFrame:
    """The finished graph runs of ``experiment`` in the store ``tracking_uri``, each configuration and seed once.

    A row is an MLflow run, as ``mlflow.search_runs`` gives it (``params.graph.<key>``, ``metrics.<name>``,
    ``tags.graph``, ``tags.seed``, ``tags.run_dir``, ...). Left out: runs that did not finish (interrupted, failed,
    or cut short by a budget: their resumed run holds their episodes), a sweep's parent runs (they hold its
    comparison, not a graph's metrics) and replays (they play their original's seeds again). Of the runs of one
    configuration and seed, only the one with the most episodes is kept (the latest, of equally long ones): one
    seed plays the same episodes in the same order, so a shorter run's episodes are the first of the longer's
    (a model's replies the same through the call cache). Keys that only say how a run ran (``resume``,
    ``progress``, ``max_concurrency``, ...) do not make two configurations, and neither does the graph's code: two
    versions of a graph run under one name with the same config and seed are one row (give them two names).

    A whole number a param holds is written one way (``6`` for both ``6`` and ``6.0``, as a Python value and a
    config file may give it), so one setting is one configuration.

    Args:
        tracking_uri: The MLflow store (default: the project's embedded one, relative to the working directory);
            a path to an SQLite file (a ``str`` or ``Path``) is read as ``sqlite:///<path>``.
        experiment: The experiment (``tracking.experiment``).
        graph: Only this graph's runs (default: every graph's).

    Raises:
        ConfigError: no store at ``tracking_uri`` (none is created), or no such experiment or graph in it (naming
            those there are).
    """
    import pandas as pd
    from mlflow.tracking import MlflowClient

    tracking_uri = _existing_store(tracking_uri)
    client = MlflowClient(tracking_uri)  # the caller's own tracking URI left as it is
    found = client.get_experiment_by_name(experiment)
    if found is None:
        there = sorted(e.name for e in client.search_experiments())
        raise ConfigError(
            f"experiment={experiment!r} is not in {scrub_url(tracking_uri)}; valid choices: {', '.join(there) or 'none'}"
        )
    rows, token = [], None
    while found is not None:
        page = client.search_runs([found.experiment_id], page_token=token)
        rows += [_row(run) for run in page]
        token = page.token
        if not token:
            break
    runs = pd.DataFrame(rows)
    for column in _COLUMNS:
        if column not in runs.columns:  # an empty store, or one without graph runs yet
            runs[column] = pd.Series(dtype=object)
    runs = runs[runs["status"] == "FINISHED"]
    for tag in ("tags.sweep", "tags.replay_of"):
        if tag in runs.columns:
            runs = runs[runs[tag].isna() | (runs[tag] == "")]
    for column in [c for c in runs.columns if c.startswith("params.")]:
        runs[column] = runs[column].map(_number_text)
    if graph is not None:
        graphs = sorted(set(runs["tags.graph"].dropna()))
        if graph not in graphs:
            raise ConfigError(
                f"graph={graph!r} has no finished run in experiment {experiment!r}; valid choices: "
                f"{', '.join(graphs) or 'none yet'}"
            )
        runs = runs[runs["tags.graph"] == graph]
    same = ["tags.graph", "tags.seed", *sorted(c for c in runs.columns if _configured(c))]
    runs = runs.sort_values(["metrics.episodes", "start_time"], na_position="first").drop_duplicates(same, keep="last")
    return runs.sort_values("start_time").reset_index(drop=True)


def _row(run: Any) -> dict[str, Any]:
    """One MLflow run as ``mlflow.search_runs`` lays it out: ``params.<key>``, ``metrics.<name>``, ``tags.<name>``."""
    import pandas as pd

    info, data = run.info, run.data
    return {
        "run_id": info.run_id,
        "experiment_id": info.experiment_id,
        "status": info.status,
        "start_time": pd.to_datetime(info.start_time, unit="ms", utc=True),
        "end_time": pd.to_datetime(info.end_time, unit="ms", utc=True) if info.end_time else None,
        **{f"metrics.{k}": v for k, v in data.metrics.items()},
        **{f"params.{k}": v for k, v in data.params.items()},
        **{f"tags.{k}": v for k, v in data.tags.items()},
    }


def _configured(column: str) -> bool:
    """Whether a column is a config key that tells configurations apart: not how a run ran, nor how long."""
    key = column.removeprefix("params.")
    return column.startswith("params.") and not run_control(key) and key != "episodes"


_WHOLE = re.compile(r"(-?[1-9]\d*|0)\.0+")


def _number_text(value: Any) -> Any:
    """A whole number a param holds, written one way: ``6`` for ``6.0`` (a config file's float and a Python
    int); anything else as it is."""
    match = _WHOLE.fullmatch(value) if isinstance(value, str) else None
    return match[1] if match else value


def _existing_store(uri: str | os.PathLike[str]) -> str:
    """``uri``, or ``sqlite:///<path>`` for a path to an SQLite file; refuses a store on disk that does not exist
    (MLflow would create an empty one there).

    Raises:
        ConfigError: naming the path looked for.
    """
    text = os.fspath(uri)
    scheme = text.partition("://")[0] if "://" in text else ""
    if scheme in ("", "file", "sqlite"):
        path = Path(text.removeprefix(f"{scheme}:///" if scheme == "sqlite" else f"{scheme}://").partition("?")[0])
        if (path.is_file() and scheme != "file") or (path.is_dir() and scheme != "sqlite"):
            return f"sqlite:///{path}" if scheme == "" and path.is_file() else text
        raise ConfigError(
            f"tracking_uri={scrub_url(text)}: no MLflow store at {path.resolve()}; give the store your runs wrote "
            f"(tracking.uri; the default, {DEFAULT_URI}, is relative to the working directory)"
        )
    return text
