"""From the command line to one typed ``RunConfig``; nothing below reads a Hydra ``DictConfig``.

- ``groups``: the config groups and their options, the conf dir (``resources``), plugins' configs;
- ``shape``: the config's keys and value types, checked before anything loads;
- ``loader``: ``load(overrides) -> RunConfig``, the one place Hydra's config is read: shape, then every key once;
- ``typed``: ``RunConfig``/``GraphRun``, the typed config (params, scenarios, casts, models);
- ``precheck``: a sweep's every job checked before its first starts;
- ``discovery``: the graphs found (built-in folders, the ``dialectica.graphs`` entry points);
- ``scenarios``: scenario files, checked against each graph's schema; ``calset``: a graph's calibrated set;
- ``view``: the ``view:`` block, typed; ``paths``: whether an output can be written.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dialectica.sim.config.loader import load as load


def __getattr__(name: str) -> Any:
    """``load`` is imported on first use: the entry point imports this package before Hydra starts."""
    if name == "load":
        from dialectica.sim.config.loader import load  # lazy: start-up (omegaconf, yaml)

        return load
    raise AttributeError(f"module 'dialectica.sim.config' has no attribute {name!r}")
