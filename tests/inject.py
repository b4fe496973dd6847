"""The real CLI in a child process with a fault injected just before the n-th call of a named function: a
signal it sends itself (SIGKILL, SIGINT, SIGTERM) or an exception the run would not expect.

Kills and interrupts then land at a point the run itself reaches (its third record written, the second
graph's figures, the first job's MLflow metrics), never at a wall-clock moment: the same point on an idle
machine and on a loaded one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

_SCRIPT = """
import importlib, os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # a shell's background job inherits SIGINT ignored
module, attr, nth, signum, error, *argv = sys.argv[1:]
owner = importlib.import_module(module)
*path, name = attr.split(".")
for part in path:
    owner = getattr(owner, part)
original, calls = getattr(owner, name), [0]
def wrapped(*args, **kwargs):
    calls[0] += 1
    if calls[0] == int(nth):
        if error:
            raise eval(error)
        os.kill(os.getpid(), int(signum))
    return original(*args, **kwargs)
setattr(owner, name, wrapped)
from dialectica.sim.cli.main import main
sys.argv = ["dialectica", *argv]
main()
"""


class At(NamedTuple):
    """Just before the ``nth`` call of ``attr`` (``name`` or ``Class.method``) of module ``module``."""

    module: str
    attr: str
    nth: int = 1

    def __str__(self) -> str:
        return f"before call {self.nth} of {self.module}.{self.attr}"


def run_at(
    at: At, args: list[str], cwd: Path, signum: int = 0, error: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Runs ``dialectica ARGS`` in ``cwd``; at ``at`` it sends itself ``signum``, or raises ``error`` (an
    expression such as ``"RuntimeError('x')"``). A run that never reaches ``at`` finishes normally: the
    caller's assertions on the exit code tell."""
    assert bool(signum) != bool(error), "a signal or an error"
    return subprocess.run(
        [sys.executable, "-c", _SCRIPT, at.module, at.attr, str(at.nth), str(int(signum)), error, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )
