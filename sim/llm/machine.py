"""One local model computes at a time on this machine.

Two llama.cpp processes on the same cores slow each other many times over: each spreads its threads over every
core, and they preempt each other mid-matrix. So every llama.cpp call, in every process of a run, of a sweep's
jobs or of another evaluation beside them, holds one machine-wide lock for as long as it computes: concurrent
jobs queue, call by call, and each call has all the cores (``LLMSettings.threads``). The lock is a blocking
``flock`` on one file: the kernel wakes a waiting process as soon as the lock is free, so jobs take turns call by
call (a polling lock would let a busy job take it again before the other looked), and drops the lock when its
process ends, however it ends, so a killed job never blocks the next.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ENV = "DIALECTICA_LLM_LOCK"  # another lock file (tests; machines whose temp folders differ per user)
_THREADS = threading.Lock()  # threads of one process queue here first: a flock belongs to the open file


def lock_path() -> Path:
    """The lock file every process on this machine shares: ``$DIALECTICA_LLM_LOCK``, else one in the temp folder."""
    return Path(os.environ.get(ENV) or Path(tempfile.gettempdir()) / "dialectica-llm.lock")


@contextmanager
def machine_lock(wait: bool = True) -> Iterator[bool]:
    """Holds the machine's model lock for one call (yields True); with ``wait=False``, yields False at once when
    another thread or process holds it. It also keeps a llama.cpp model, which is not thread-safe, to one call."""
    if not _THREADS.acquire(blocking=wait):
        yield False
        return
    try:
        fd = os.open(lock_path(), os.O_RDWR | os.O_CREAT, 0o666)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)  # closing the file releases its lock
    finally:
        _THREADS.release()
