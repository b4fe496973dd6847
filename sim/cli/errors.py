"""One error policy for every subcommand: bad input is one line on stderr and exit 2, a fault during a run one line
and exit 1, an interrupt 128 + the signal; nothing else reaches the terminal (``HYDRA_FULL_ERROR=1`` shows
tracebacks)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, cast

from dialectica.sim.authoring.params import ConfigError, did_you_mean

INPUT, FAULT = 2, 1  # exit codes: bad input (nothing ran), a fault during the run; 128 + signal when interrupted


def say(message: str) -> None:
    """Prints ``message`` as the one line ``dialectica: error: ...`` on stderr."""
    print(f"dialectica: error: {' '.join(message.split())}", file=sys.stderr)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors follow the policy: one line naming the option, exit 2."""

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """Also takes ``key=value`` for an option ``--key`` (``labels=FILE`` is ``--labels FILE``), the way the
        commands that run episodes take their keys."""
        given = list(sys.argv[1:] if args is None else args)
        options = self._option_string_actions

        def spelled(arg: str) -> list[str]:
            key, eq, value = arg.partition("=")
            flag = "--" + key.replace("_", "-")
            return [flag, value] if eq and not arg.startswith("-") and flag in options else [arg]

        return super().parse_known_args([part for arg in given for part in spelled(arg)], namespace)

    def error(self, message: str) -> NoReturn:
        say(f"{message}; see `{self.prog} --help`")
        sys.exit(INPUT)


def guarded(command: Callable[[list[str]], Any], argv: Sequence[str]) -> int:
    """Runs a subcommand; its result is the exit code when it is an int (0 otherwise); bad input is one line, 2."""
    try:
        result = command(list(argv))
    except ConfigError as exc:
        say(str(exc))
        return INPUT
    except Exception as exc:
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException

        if not isinstance(exc, HydraException | OmegaConfBaseException) or os.environ.get("HYDRA_FULL_ERROR") == "1":
            raise
        say(describe(exc)[0])  # an override Hydra cannot read or compose: bad input
        return INPUT
    except KeyboardInterrupt:
        print("dialectica: interrupted (SIGINT)", file=sys.stderr)
        return 130
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


_OVERRIDE = re.compile(r"Could not override '([^']+)'")


def describe(exc: Exception, started: bool = False) -> tuple[str, int]:
    """One line for an exception that escaped the app, and the exit code: 2 for bad input, 1 for a fault
    (``started``: episodes may have been written, so a fault is not bad input)."""
    from hydra.errors import (
        ConfigCompositionException,
        HydraException,
        MissingConfigException,
        OverrideParseException,
    )
    from omegaconf.errors import OmegaConfBaseException

    text = " ".join(str(exc).split())
    if isinstance(exc, ConfigError):
        return text, INPUT
    if isinstance(exc, OverrideParseException):
        lines = [line.strip() for line in str(exc).splitlines() if line.strip() and not line.startswith("See ")]
        return (
            f"cannot read the command line: {'; '.join(lines)}; settings are key=value (e.g. episodes=5, "
            "scenario=[a,b]), `dialectica --help` lists them"
        ), INPUT
    if isinstance(exc, MissingConfigException):
        return _missing_option(str(exc)), INPUT
    cause = exc.__cause__
    if isinstance(exc, ConfigCompositionException) and isinstance(cause, OmegaConfBaseException) and cause.full_key:
        return _unknown_key(str(exc), cause), INPUT
    if isinstance(exc, HydraException):
        return text.replace("Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.", ""), INPUT
    if isinstance(exc, OmegaConfBaseException):  # a value Hydra composed but cannot resolve (${...})
        key = f"{exc.full_key}: " if exc.full_key else ""
        return f"{key}{text.partition(' full_key:')[0]}; fix the value (see `dialectica --cfg job`)", INPUT
    if isinstance(exc, OSError) and exc.filename is not None:
        return (
            f"{exc.filename}: {exc.strerror or text}; check the paths in the config (hydra.run.dir, "
            "datasets_dir, tracking.uri) and their permissions"
        ), FAULT if started else INPUT
    return (
        f"unexpected {type(exc).__name__}: {text or 'no message'}; "
        f"{'a fault during the run' if started else 'before the run started'}; "
        "set HYDRA_FULL_ERROR=1 to see the traceback (please report it if it looks like a bug)"
    ), FAULT


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
        from dialectica.sim.config.loader import needs_one_graph  # lazy: start-up

        return needs_one_graph(full_key.removeprefix("graph."))
    if not keys:
        return f"unknown key {full_key}; to add it write +{override}=<value>"
    if full_key.startswith("llm.") and keys == ["backend"]:
        return f"{full_key} is a setting of a model: add llm=llamacpp or llm=openai (llm=scripted has none)"
    parent_key, _, last = full_key.rpartition(".")
    hint = did_you_mean(last, keys, f"{parent_key}." if parent_key else "")
    return f"unknown key {full_key}{hint}; valid keys: {', '.join(keys)}"
