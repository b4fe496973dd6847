"""One sweep's episodes for analysis: ``dialectica.load_sweep(SWEEP)``, where SWEEP is a sweep directory or
its MLflow parent run id. Only that sweep's jobs are read, so two sweeps in one store never mix."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.records import FILE, load_episodes

if TYPE_CHECKING:
    import pandas as pd


class SweepError(ConfigError):
    """A sweep that cannot be read, in one sentence."""


@dataclass(frozen=True)
class Sweep:
    """A sweep, read back.

    Attributes:
        directory: Its directory (``hydra.sweep.dir``).
        parent_run_id: Its MLflow parent run, when it was tracked.
        tracking_uri: The store that run is in.
        swept: The columns of the keys whose value differs between jobs (``graph.convergence_threshold``;
            a key an episode has a column of its own for is ``run_<key>``: a swept ``seed`` is ``run_seed``, apart
            from each episode's own ``seed``, and ``graph=all`` is ``run_graph``, each episode keeping its graph).
        episodes: One row per episode of every job (``dialectica.load_episodes`` columns), with ``job`` and
            one column per key the jobs' command lines set (numbers where every value is one; keys that only say
            how a job ran, such as ``resume`` or ``progress``, left out unless the sweep swept them).
        comparison: The sweep's comparison table (paired tests against the best configuration).

    ``configurations()`` gives each episode's configuration as an ordered categorical, for grouping and plots.
    """

    directory: Path
    parent_run_id: str | None
    tracking_uri: str | None
    swept: list[str]
    episodes: pd.DataFrame
    comparison: pd.DataFrame

    def configurations(self, episodes: pd.DataFrame | None = None) -> pd.Series:
        """Each episode's configuration, as the values of the swept keys (``run_seed`` left out): an ordered
        categorical, numbers in numeric order (6 before 12), so that tables and plots keyed on it follow the
        values."""
        import pandas as pd

        frame = self.episodes if episodes is None else episodes
        keys = [key for key in self.swept if key != "run_seed"]
        if not keys:
            return pd.Series(pd.Categorical(["(defaults)"] * len(frame)), index=frame.index)
        labels = frame[keys].astype(str).agg(" ".join, axis=1)
        order = frame[keys].assign(label=labels).drop_duplicates("label").sort_values(keys, kind="stable")["label"]
        return pd.Series(pd.Categorical(labels, categories=list(order), ordered=True), index=frame.index)


def _from_run(run_id: str, tracking_uri: str) -> tuple[Path, str]:
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient

    try:
        run = MlflowClient(tracking_uri).get_run(run_id)
    except MlflowException:
        raise SweepError(
            f"no sweep {run_id!r}: not a sweep directory, nor a run in the MLflow store {tracking_uri}"
        ) from None
    if run.data.tags.get("sweep") != "true":
        raise SweepError(f"MLflow run {run_id} is not a sweep's parent run (it has no tag sweep=true)")
    directory = Path(run.data.tags.get("sweep_dir", ""))
    if not directory.is_dir():
        raise SweepError(
            f"the directory of sweep {run_id}, {directory}, is not on this machine; "
            "read the sweep where it ran, or copy the directory here"
        )
    return directory, run_id


def _typed(values: pd.Series) -> pd.Series:
    import pandas as pd

    numbers = pd.to_numeric(values, errors="coerce")
    return numbers if numbers.notna().all() else values


def load_sweep(target: str | Path, tracking_uri: str | None = None) -> Sweep:
    """Reads one sweep: a sweep directory, or the id of its MLflow parent run in ``tracking_uri``.

    Raises:
        SweepError: one sentence, when ``target`` is neither, or the sweep has no finished episodes yet.
    """
    import pandas as pd

    from dialectica.sim.config.typed import run_control  # lazy: start-up (omegaconf, yaml)
    from dialectica.sim.tracking.sweep import PARENT_FILE, comparison, job_files  # lazy: start-up (hydra, omegaconf)

    path = Path(target)
    parent: str | None = None
    if path.is_dir():
        directory = path
        if (path / PARENT_FILE).exists():
            stored = json.loads((path / PARENT_FILE).read_text())
            parent, tracking_uri = stored["run_id"], tracking_uri or stored["uri"]
    elif tracking_uri and "/" not in str(target):
        directory, parent = _from_run(str(target), tracking_uri)
    else:
        raise SweepError(
            f"no sweep at {target}: give a sweep directory (hydra.sweep.dir) or its MLflow parent run id with a tracking URI"
        )
    jobs = [path.parent for path in job_files(directory, FILE)]
    frames = []
    keys: dict[str, str] = {}  # override key -> its column (run_seed: the run's seed=, not an episode's seed)
    for job in jobs:
        frame = load_episodes(job)
        if frame.empty:
            continue
        summary = job / "summary.json"
        overrides = json.loads(summary.read_text()).get("overrides", []) if summary.exists() else []
        frame["job"] = job.name
        for override in overrides:
            key, _, value = override.lstrip("+~").partition("=")
            column = keys.setdefault(key, f"run_{key}" if key in frame.columns else key)  # seed, graph, scenario
            frame[column] = value
        frames.append(frame)
    if not frames:
        if (directory / FILE).exists():  # a run's folder, a sweep's job among them
            above = directory.parent if any(directory.parent.glob(f"*/{FILE}")) and directory.name.isdigit() else None
            where = f"; its sweep is {above}" if above is not None else ""
            raise SweepError(f"{directory} is a run, not a sweep{where}; read a run with dialectica.load_episodes")
        raise SweepError(f"sweep {directory} has no finished episodes yet (no job folder with records in {FILE})")
    episodes = pd.concat(frames, ignore_index=True)
    # How jobs ran (resume=true after an interruption, progress=false) is not what they measured; a key every job
    # sets, to values that differ, is swept (max_concurrency=1,4).
    for key, column in list(keys.items()):
        if run_control(key) and (episodes[column].isna().any() or episodes[column].nunique() == 1):
            episodes = episodes.drop(columns=column)
            del keys[key]
    swept = [column for column in keys.values() if episodes[column].nunique(dropna=False) > 1]
    for column in keys.values():
        episodes[column] = _typed(episodes[column])
    return Sweep(directory, parent, tracking_uri, swept, episodes, comparison(directory))
