"""Hydra's and OmegaConf's reports of bad input (an override it cannot read, an unknown option or key, a value
that does not resolve) as one line naming the key and the valid choices: the command line and
``dialectica.evaluate(overrides=...)`` say the same."""

from __future__ import annotations

import re
from typing import Any, cast

from dialectica.sim.authoring.params import did_you_mean

_OVERRIDE = re.compile(r"Could not override '([^']+)'")


def input_error(exc: BaseException) -> str | None:
    """One line for a Hydra or OmegaConf exception about the config; None for any other exception."""
    from hydra.errors import (
        ConfigCompositionException,
        HydraException,
        MissingConfigException,
        OverrideParseException,
    )
    from omegaconf.errors import OmegaConfBaseException

    text = " ".join(str(exc).split())
    if isinstance(exc, OverrideParseException):
        lines = [line.strip() for line in str(exc).splitlines() if line.strip() and not line.startswith("See ")]
        return (
            f"cannot read the command line: {'; '.join(lines)}; settings are key=value (e.g. episodes=5, "
            "scenario=[a,b]), `dialectica --help` lists them"
        )
    if isinstance(exc, MissingConfigException):
        return _missing_option(str(exc))
    cause = exc.__cause__
    if isinstance(exc, ConfigCompositionException) and isinstance(cause, OmegaConfBaseException) and cause.full_key:
        return _unknown_key(str(exc), cause)
    if isinstance(exc, HydraException):
        return text.replace("Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.", "").strip()
    if isinstance(exc, OmegaConfBaseException):  # a value Hydra composed but cannot resolve (${...})
        key = f"{exc.full_key}: " if exc.full_key else ""
        return f"{key}{text.partition(' full_key:')[0]}; fix the value (see `dialectica --cfg job`)"
    return None


def needs_one_graph(key: str) -> str:
    """The message for a graph's own ``key`` set while ``graph=all`` (the default) runs every graph."""
    from dialectica.sim.config.discovery import names  # lazy: start-up (yaml)

    return (
        f"graph.{key} needs one graph: add graph=<name>, or use per_graph.<name>.{key} to set it "
        f"for one graph of graph=all ({', '.join(names())})"
    )


def _missing_option(text: str) -> str:
    """Hydra's 'Could not find group/option' report (several lines) as one line with the valid choices."""
    found = re.search(r"Could not find '([^']+)'", text)
    options = re.findall(r"^\t(\S+)$", text.partition("Config search path")[0], flags=re.MULTILINE)
    name = found.group(1) if found else "?"
    group, _, option = name.rpartition("/")
    if group:
        hint = did_you_mean(option, options, f"{group}=")
        return f"unknown {group}={option!r}{hint}; valid choices: {', '.join(options) or '(none)'}"
    return f"config {name!r} not found; {' '.join(text.split())}"


def _unknown_key(text: str, cause: Any) -> str:
    """Hydra's 'Could not override' report as one line: the key, and the keys valid there."""
    from dialectica.sim.config.discovery import names  # lazy: start-up (yaml)

    found = _OVERRIDE.search(text)
    override = found.group(1) if found else str(cause.full_key)
    full_key = str(cause.full_key)
    if full_key.startswith("per_graph."):
        graph = full_key.split(".")[1]
        if graph not in names():
            return f"unknown graph per_graph.{graph}; valid choices: {', '.join(names())}"
        return f"{override} is a new key: write +{override}=<value> (a leading + adds a key)"
    parent = getattr(cause, "parent_node", None)
    hidden = {"hydra", "name"} if full_key.startswith("graph.") else {"hydra"}
    keys = sorted(str(k) for k in cast("Any", parent) if str(k) not in hidden) if hasattr(parent, "keys") else []
    if not keys and full_key.startswith("graph."):  # graph=all, the default, has no keys of its own
        return needs_one_graph(full_key.removeprefix("graph."))
    if not keys:
        return f"unknown key {full_key}; to add it write +{override}=<value>"
    if full_key.startswith("llm.") and keys == ["backend"]:
        return f"{full_key} is a setting of a model: add llm=llamacpp or llm=openai (llm=scripted has none)"
    parent_key, _, last = full_key.rpartition(".")
    if last in keys:  # the key is there: its value is what Hydra could not take (n_trials=abc)
        return f"{full_key} cannot take the value given: {str(cause).splitlines()[0][:200]}"
    hint = did_you_mean(last, keys, f"{parent_key}." if parent_key else "")
    return f"unknown key {full_key}{hint}; valid keys: {', '.join(keys)}"
