"""One local model computes at a time on this machine.

Two llama.cpp processes on the same cores slow each other many times over: each spreads its threads over every
core, and they preempt each other mid-matrix. So every llama.cpp call, in every process of a run, of a sweep's
jobs or of another evaluation beside them, holds one machine-wide file lock for as long as it computes:
concurrent jobs queue, call by call, and each call has all the cores (``LLMSettings.threads``). The kernel
drops the lock when its process ends, however it ends, so a killed job never blocks the next.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from filelock import FileLock

ENV = "DIALECTICA_LLM_LOCK"  # another lock file (tests; machines whose temp folders differ per user)


def lock_path() -> Path:
    """The lock file every process on this machine shares: ``$DIALECTICA_LLM_LOCK``, else one in the temp folder."""
    return Path(os.environ.get(ENV) or Path(tempfile.gettempdir()) / "dialectica-llm.lock")


def machine_lock() -> FileLock:
    """The machine's model lock; threads of one process exclude each other on it as processes do (each thread holds
    its own handle on the file), so it also keeps a llama.cpp model, which is not thread-safe, to one call at a time."""
    return FileLock(lock_path(), mode=0o666)
