"""One error policy for every subcommand: bad input is one line on stderr and exit 2, a fault during a run one line
and exit 1, an interrupt 128 + the signal; nothing else reaches the terminal (``HYDRA_FULL_ERROR=1`` shows
tracebacks)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from dialectica.sim.authoring.params import ConfigError, closest, did_you_mean
from dialectica.sim.config.hydra_errors import input_error

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

        keys = [o[2:].replace("-", "_") for o in options if o.startswith("--") and o != "--help"]

        def spelled(arg: str) -> list[str]:
            key, eq, value = arg.partition("=")
            flag = "--" + key.replace("_", "-")
            if eq and not arg.startswith("-") and flag in options:
                return [flag, value]
            if eq and key.isidentifier() and closest(key, keys):  # a mistyped key, not a path or an override
                raise ConfigError(
                    f"unknown key {key}{did_you_mean(key, keys)}; valid keys: {', '.join(keys)}; see `{self.prog} --help`"
                )
            return [arg]

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
    except BrokenPipeError:  # the reader stopped reading (``| head``): what it read is what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error as Python flushes at exit
        return 0
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


def describe(exc: Exception, started: bool = False) -> tuple[str, int]:
    """One line for an exception that escaped the app, and the exit code: 2 for bad input, 1 for a fault
    (``started``: episodes may have been written, so a fault is not bad input)."""
    text = " ".join(str(exc).split())
    if isinstance(exc, ConfigError):
        return text, INPUT
    line = input_error(exc)
    if line is not None:
        return line, INPUT
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
