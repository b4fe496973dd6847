"""The console script's ``main()`` in a child forked from a process that has already imported the CLI.

A bad input is answered in a fraction of a second, but a fresh interpreter spends about a second importing
Hydra, LangGraph and langchain-core before it gets there. Batteries of bad inputs run each case here instead:
a forkserver (one per test process) imports those modules once, and every case is a new child process of its
own, with its own working folder, environment, stdout, stderr and exit code, running the same ``main()`` the
``dialectica`` script runs. Cases about signals and kills keep a real subprocess (``tests.inject``).
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# dialectica.graph imports the scripted chat model on first use: preloaded by name, like the rest.
PRELOAD = [
    "dialectica.sim.cli.main",
    "dialectica.sim.cli.run",
    "dialectica.graph",
    "dialectica.sim.authoring.scripted",
    "langgraph.graph",
    "mlflow",
]
_CONTEXT: list[Any] = []


def _context() -> Any:
    if not _CONTEXT:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        _CONTEXT.append(context)
    return _CONTEXT[0]


def _child(argv: list[str], cwd: str, env: dict[str, str], out: str, err: str) -> None:
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    for fd, path in ((1, out), (2, err)):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    from dialectica.sim.cli.main import main

    sys.argv = ["dialectica", *argv]
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def dialectica(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``dialectica *args`` run in ``cwd`` with ``os.environ`` plus ``env``, as ``subprocess.run`` would report it."""
    with tempfile.TemporaryDirectory() as tmp:
        out, err = f"{tmp}/stdout", f"{tmp}/stderr"
        process = _context().Process(target=_child, args=(args, str(cwd), {**os.environ, **(env or {})}, out, err))
        process.start()
        process.join()
        return subprocess.CompletedProcess(
            ["dialectica", *args], process.exitcode, Path(out).read_text(), Path(err).read_text()
        )
