"""Running episodes, in three layers and one checkpoint (as tau2-bench's runner is documented):

- ``episode``: execute one seeded episode through the graph compiled once, to one typed record;
- ``build``: from the typed config to each episode's plan (its seed, scenario, cast kind, fault rates);
- ``batch``: run a graph's episodes with bounded concurrency (``inflight``), append records as they finish
  (``records``), compute metrics by streaming, write the summary, figures and pages, log to MLflow;
- ``checkpoint``: what a killed run left and what resuming it keeps: the config fingerprint, finished
  episodes, finished graphs.

``runner.run(cfg)`` (also ``dialectica.sim.engine.run``) is the one way in: probe, resume, batch, replay report.
Beside them: ``meter`` (per-node time and model usage), ``embedding`` (the sentence embedder),
``figures`` (a run's plots), ``replay`` (forking a finished run's episodes at a turn).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dialectica.sim.engine.runner import run as run


def __getattr__(name: str) -> Any:
    """``run`` is imported on first use, like the rest of the engine."""
    if name == "run":
        from dialectica.sim.engine.runner import run  # lazy: start-up (omegaconf, yaml)

        return run
    raise AttributeError(f"module 'dialectica.sim.engine' has no attribute {name!r}")
