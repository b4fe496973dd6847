"""Layer timeouts: run a branch in a daemon thread and give up on it at its deadline.

A thread cannot be killed; a branch that overruns keeps running in the background
(daemon, so it never holds the process open) while the graph moves on with the
fallback value the caller supplies.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def run_with_deadline(work: Callable[[], T], seconds: float) -> tuple[str, Any, float]:
    """Runs ``work()`` for at most ``seconds``.

    Returns:
        (status, value, elapsed): status "ok" with the result, "error" with the
        exception, or "timeout" with None.
    """
    box: queue.Queue[Any] = queue.Queue(maxsize=1)

    def target() -> None:
        try:
            box.put(("ok", work()))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller as a value
            box.put(("error", exc))

    start = time.perf_counter()
    context = contextvars.copy_context()  # keeps LangGraph's run config (callbacks) inside the thread
    threading.Thread(target=context.run, args=(target,), name="tribunal-branch", daemon=True).start()
    try:
        status, value = box.get(timeout=seconds)
    except queue.Empty:
        status, value = "timeout", None
    return status, value, time.perf_counter() - start
