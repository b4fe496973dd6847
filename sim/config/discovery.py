"""Finding graphs: built-in ones by their folder under ``dialectica/graphs/``, third-party ones through
the entry-point group ``dialectica.graphs`` (a plugin names one GraphSpec object), graphs used as they are by
an import string (``package.module:attr`` or ``path/to/file.py:attr``), and those ``dialectica.evaluate``
registered in this process.

Names are found without importing any graph; a graph's module is imported only when it is loaded, and a
plugin that fails to import affects only runs of that plugin.
"""

from __future__ import annotations

import pkgutil
from functools import cache
from importlib import import_module
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from dialectica.sim.authoring.params import ConfigError, did_you_mean
from dialectica.sim.authoring.spec import GraphSpec

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
            raise ConfigError(
                f"plugin graph {ep.name!r} ({ep.value}) clashes with another graph of that name; "
                "rename its entry point in the group dialectica.graphs"
            )
        found[ep.name] = ep
    return found


def names() -> list[str]:
    """Every graph found, built-in and plugins."""
    return sorted({*builtin_names(), *plugins()})


_REGISTERED: dict[str, GraphSpec] = {}


def register(spec: GraphSpec) -> None:
    """Makes ``spec`` loadable by its name in this process (``dialectica.evaluate`` of a graph object)."""
    _REGISTERED[spec.name] = spec


def is_import_string(name: str) -> bool:
    return ":" in name


def display_name(target: str) -> str:
    """The name records, folders and MLflow give a graph named by an import string: ``package.module.attr``
    (``path/to/file.py:attr`` gives ``file.attr``; a file or folder inside a package its dotted module's,
    ``path/to/pkg/__init__.py:attr`` gives ``pkg.attr``), no colon or slash in a folder name."""
    from dialectica.sim.adapter.strings import package_module  # lazy: start-up (langchain-core)

    module, _, attr = target.partition(":")
    packaged = package_module(module)
    if packaged is not None:
        return f"{packaged[1]}.{attr}"
    return f"{Path(module).stem if module.endswith('.py') else module}.{attr}"


def folder_name(graph: str) -> str:
    """``graph=``'s value as a folder name under ``results/...``: the name itself, or an import string's
    ``display_name`` (a path in it would put the folder outside ``results``)."""
    return display_name(graph).replace("/", ".") if is_import_string(graph) else graph


def load(name: str) -> GraphSpec:
    """The spec of graph ``name``, importing only that graph.

    Raises:
        ConfigError: for an unknown name (listing the valid choices), a plugin that fails to import (naming its
            package and the error), or a plugin whose entry point does not name a GraphSpec with that name.
    """
    return _REGISTERED[name] if name in _REGISTERED else _load(name)


@cache
def _load(name: str) -> GraphSpec:
    if is_import_string(name):
        from dialectica.sim.adapter.app import App  # lazy: start-up (langgraph, langchain-core)
        from dialectica.sim.adapter.strings import import_object  # lazy: start-up (langchain-core, langsmith)

        obj = import_object(name)
        if isinstance(obj, GraphSpec):
            register(obj)  # its pages, endings and views found by the name its records carry
            return obj
        spec = App(obj, name=display_name(name)).spec()
        register(spec)  # pages and reports find it by the name its records carry
        return spec
    if name in builtin_names():
        spec = import_module(f"{BUILTIN}.{name}").SPEC
    elif name in plugins():
        ep = plugins()[name]
        try:
            spec = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken plugin is its own problem, said in one line
            package = ep.dist.name if ep.dist is not None else ep.value.partition(":")[0]
            raise ConfigError(
                f"plugin graph {name!r} (package {package}, entry point {ep.value}) failed to import: "
                f"{type(exc).__name__}: {' '.join(str(exc).split())}; fix or uninstall that package"
            ) from None
    else:
        raise ConfigError(
            f"unknown graph={name!r}{did_you_mean(name, names(), 'graph=')}; valid choices: all, {', '.join(names())}, "
            "or a graph of your own: package.module:attr or path/to/file.py:attr (a GraphSpec, or a LangGraph graph "
            "used as it is)"
        )
    if not isinstance(spec, GraphSpec):
        raise ConfigError(f"graph {name!r} does not export a GraphSpec (got {type(spec).__name__})")
    if spec.name != name:
        raise ConfigError(
            f"graph {name!r}: its entry point names a GraphSpec named {spec.name!r}; an entry point's name must be "
            f"its spec's name: rename one of them"
        )
    return spec


def loadable() -> tuple[list[str], list[str]]:
    """The graphs that load, and one line for each that does not (``graph=all`` runs the first, warns of the rest)."""
    good, problems = [], []
    for name in names():
        try:
            load(name)
            good.append(name)
        except ConfigError as exc:
            problems.append(str(exc))
    return good, problems
