"""One runner from a ``RunConfig`` to its summary: ``dialectica``, ``dialectica.evaluate``, ``replay``, validity,
calibration, compare and the benchmarks all run through it.

``run`` probes the MLflow store, refuses to resume into a directory made with another config, returns a finished
run's summary as it is (``resume=true``), runs the experiment, and writes a replay's paired report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dialectica.sim.config.typed import RunConfig
from dialectica.sim.engine import checkpoint
from dialectica.sim.engine.replay_report import write_report


@dataclass(frozen=True)
class Summary:
    """What a run wrote to ``summary.json``, and how it got there.

    Attributes:
        values: ``summary.json``: per graph its metrics, MLflow run and phase times; a sweep's ``objective``.
        already_finished: ``resume=true`` found the run finished: nothing ran.
        replay: A replay's paired report (``replay.json``), or None.
    """

    values: dict[str, Any]
    already_finished: bool = False
    replay: dict[str, Any] | None = None

    @property
    def graphs(self) -> dict[str, Any]:
        """Graph name -> its entry (``metrics``, ``mlflow_run_id``, ...)."""
        graphs: dict[str, Any] = self.values.get("graphs", {})
        return graphs

    def metrics(self, graph: str) -> dict[str, float]:
        """The metrics of ``graph``'s episodes (``convergence_rate``, its interval, ...).

        Raises:
            KeyError: naming the graphs the run played.
        """
        if graph not in self.graphs:
            raise KeyError(f"{graph!r}: this run played no such graph; valid choices: {', '.join(sorted(self.graphs))}")
        metrics: dict[str, float] = self.graphs[graph]["metrics"]
        return metrics

    @property
    def objective(self) -> float | None:
        return self.values.get("objective")


def run(cfg: RunConfig, echo: Callable[[str], None] = print, embed: Any = None) -> Summary:
    """Runs ``cfg``: every graph's episodes, metrics, files and MLflow run.

    Args:
        cfg: From ``dialectica.load_config``.
        echo: Where the run's lines go (the store, a resumed or finished run).
        embed: A sentence-embedding function to use instead of the packaged model (tests).

    Returns:
        The summary: ``summary.metrics(graph)``, ``summary.already_finished``, a replay's ``summary.replay``.

    Raises:
        ConfigError: the store cannot be reached, a run without ``resume=true`` into a directory that holds one,
            or ``resume=true`` into a directory made with another config (left as it was).
    """
    if cfg.tracking.enabled and cfg.tracking.parent_run_id is None:  # a sweep's store was probed before its jobs
        from dialectica.sim.tracking.store import probe  # lazy: start-up (ssl, http)

        probe(cfg.tracking.uri)
    if cfg.resume:
        checkpoint.check(cfg.out_dir, cfg.resolved)
        finished = checkpoint.finished_run(cfg.out_dir, cfg.episodes)
        if finished is not None:
            return Summary(finished, already_finished=True)
    from dialectica.sim.engine.batch import run_experiment  # lazy: start-up (langgraph, langchain-core)

    values = run_experiment(cfg, embed=embed, echo=echo)
    forks = {(r.fork.run, r.fork.turn) for r in cfg.graphs if r.fork is not None}
    report = None
    for source, turn in forks:  # one: every graph of a replay forks from the same run and turn
        report = write_report(Path(source), cfg.out_dir, turn)
    return Summary(values, replay=report)
