"""The choices of the config groups that the entry point checks before Hydra starts (kept light: no
graph, model or tracking import happens here)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.config import discovery
from dialectica.sim.config.resources import group_options

BROKEN: dict[str, str] = {}  # plugin graphs that failed to import: name -> one line saying why
_TARGETS: dict[str, str] = {}  # the graph= options that differ from their import string -> the string as written


def option(target: str) -> str:
    """The ``graph=`` option of an import string: Hydra reads ``/`` in an option as a folder, so a path's
    slashes become ``..`` (the config's ``name`` keeps the string as written; ``original`` turns it back)."""
    return target.replace("/", "..")


def original(text: str) -> str:
    """``text`` (overrides, a log line) with each registered path-form graph's option, as passed to Hydra or as
    Hydra escapes it in a sweep (``bots..desk.py\\:graph``), back as its import string (``bots/desk.py:graph``):
    what people read, and what a replay or another command passes on."""
    for name, target in _TARGETS.items():
        text = text.replace(name.replace(":", "\\:"), target).replace(name, target)
    return text


def _original_log_lines(make: Any) -> Any:
    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record: logging.LogRecord = make(*args, **kwargs)
        with suppress(Exception):  # a bad format string is logging's own error to report
            record.msg, record.args = original(record.getMessage()), None
        return record

    factory.original_names = True  # type: ignore[attr-defined]
    return factory


def register_plugin_configs(graphs: Sequence[str] = ()) -> None:
    """Puts each plugin graph's defaults in Hydra's config store as ``graph=<name>``, beside the built-in
    graphs' ``conf/graph/*.yaml``, and those of the import strings in ``graphs`` (``graph=package.module:attr``,
    loaded here: a graph that cannot be imported is a ConfigError). A plugin that fails to import is left out
    and said in ``BROKEN``: it breaks no run of another graph."""
    from hydra.core.config_store import ConfigStore

    store = ConfigStore.instance()
    for name in discovery.plugins():
        try:
            node = discovery.load(name).defaults()
        except ConfigError as exc:
            BROKEN[name] = str(exc)
            continue
        store.store(group="graph", name=name, node=node)
    for target in graphs:
        # the node keeps the import string: a sweep's job in another process loads the graph from it
        store.store(group="graph", name=option(target), node={**discovery.load(target).defaults(), "name": target})
        remember(target)


def remember(target: str) -> None:
    """Notes the option of a path-form import string, so that ``original`` and this process's log lines (Hydra's
    launch lines among them) give it back as written; a sweep's job in another process calls it with its graph."""
    if option(target) == target:
        return
    _TARGETS[option(target)] = target
    make = logging.getLogRecordFactory()
    if not getattr(make, "original_names", False):
        logging.setLogRecordFactory(_original_log_lines(make))


def import_strings(args: Sequence[str]) -> list[str]:
    """The import strings that ``graph=`` overrides name (``graph=a.b:g`` or, in a sweep, ``graph=a.b:g,c.d:h``)."""
    found = []
    for arg in args:
        key, sep, value = arg.partition("=")
        if sep and key.lstrip("+~") == "graph":
            found += [v for v in value.strip("[]").split(",") if discovery.is_import_string(v)]
    return found


def graph_options() -> list[str]:
    """The choices of ``graph=``: ``all``, the built-in graphs' config files and the plugins."""
    return sorted({*group_options("graph"), *discovery.plugins()})
