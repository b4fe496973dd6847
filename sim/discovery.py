"""Finding graphs: built-in ones by their folder under ``dialectica/graphs/``, third-party ones through
the entry-point group ``dialectica.graphs`` (a plugin names one GraphSpec object).

Names are found without importing any graph; a graph's module is imported only when it is loaded.
"""

from __future__ import annotations

import pkgutil
from functools import cache
from importlib import import_module
from importlib.metadata import EntryPoint, entry_points

from dialectica.sim.params import ConfigError
from dialectica.sim.spec import GraphSpec

GROUP = "dialectica.graphs"
BUILTIN = "dialectica.graphs"


@cache
def builtin_names() -> tuple[str, ...]:
    """The folders under ``dialectica/graphs/`` (each a package exporting ``SPEC``)."""
    package = import_module(BUILTIN)
    return tuple(sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.ispkg and not m.name.startswith("_")))


@cache
def plugins() -> dict[str, EntryPoint]:
    """Installed plugin graphs by name; a plugin that reuses a built-in name is refused."""
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=GROUP):
        if ep.name in builtin_names() or ep.name in found:
            raise ConfigError(f"plugin graph {ep.name!r} ({ep.value}) clashes with another graph of that name; "
                              "rename its entry point in the group dialectica.graphs")
        found[ep.name] = ep
    return found


def names() -> list[str]:
    """Every graph found, built-in and plugins."""
    return sorted({*builtin_names(), *plugins()})


@cache
def load(name: str) -> GraphSpec:
    """The spec of graph ``name``, importing only that graph.

    Raises:
        ConfigError: for an unknown name (listing the valid choices), or a plugin whose entry point
            does not name a GraphSpec with that name.
    """
    if name in builtin_names():
        spec = import_module(f"{BUILTIN}.{name}").SPEC
    elif name in plugins():
        spec = plugins()[name].load()
    else:
        raise ConfigError(f"unknown graph={name!r}; valid choices: all, {', '.join(names())}")
    if not isinstance(spec, GraphSpec) or spec.name != name:
        raise ConfigError(f"graph {name!r} does not export a GraphSpec named {name!r} (got {type(spec).__name__})")
    return spec


def load_all() -> list[GraphSpec]:
    return [load(name) for name in names()]
