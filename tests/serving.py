"""Servers the slow tests start on loopback, ready when they say so (an event on their stderr), never on a clock."""

from __future__ import annotations

import socket
import subprocess
import threading

import pytest

READY = "Uvicorn running on"  # what uvicorn writes once it listens (llama_cpp.server, mlflow server)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(command: list[str], **kwargs: object) -> subprocess.Popen[str]:
    """Starts ``command`` and returns once it listens; its stderr is read to the end so that it never blocks.

    Fails the test if the server exits before it listens.
    """
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kwargs)  # type: ignore[call-overload]
    ready = threading.Event()
    said: list[str] = []

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if not ready.is_set():
                said.append(line)
            if READY in line:
                ready.set()
        ready.set()  # it exited before listening

    threading.Thread(target=drain, daemon=True).start()
    ready.wait()
    if proc.poll() is not None:
        pytest.fail(f"{command[0]} exited with {proc.returncode} before listening: {''.join(said)[-2000:]}")
    return proc
