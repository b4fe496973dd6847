"""The episode bar of a run: episodes done, the share converged, errors, and the model calls made so far.

An LLM episode can take many minutes (the committee's, some 35 calls a round); the bar counts each model call
as it ends, through LangChain's callbacks, so it moves before the episode does. A call the call cache answered
is not counted, nor a scripted participant's reply: the count is the model's work.

On a terminal the bar redraws in place; written to a file or a pipe (``> run.log``, CI) it is a line at most every
30 seconds and its last state, so that a log holds lines to read rather than thousands of carriage returns.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from tqdm import tqdm

EVERY_S = 30.0  # seconds between a redirected bar's lines


class LineLog:
    """A stream for tqdm that is not a terminal: each redraw becomes a whole line, at most one per ``every``
    seconds of ``clock``, and the bar's last state is written when it closes."""

    def __init__(self, stream: IO[str], every: float = EVERY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream, self.every, self.clock = stream, every, clock
        self.pending: str | None = None
        self.last = float("-inf")

    def write(self, text: str) -> None:
        line = text.replace("\r", "").strip("\n")
        if line.strip():
            self.pending = line
            if self.clock() - self.last >= self.every:
                self._emit()
        elif "\n" in text:  # the bar closed: its last state
            self._emit()

    def _emit(self) -> None:
        if self.pending is not None:
            self.stream.write(self.pending + "\n")
            self.stream.flush()
            self.pending, self.last = None, self.clock()

    def flush(self) -> None:
        self.stream.flush()


def bar(desc: str, total: int, unit: str, enabled: bool = True, stream: IO[str] | None = None) -> Any:
    """A tqdm bar on ``stream`` (stderr): redrawn in place on a terminal, a ``LineLog`` elsewhere."""
    out = stream if stream is not None else sys.stderr
    on_terminal = out.isatty()
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        disable=not enabled,
        leave=True,
        dynamic_ncols=on_terminal,
        file=out if on_terminal else LineLog(out),
    )


def _answered_by_cache(response: Any) -> bool:
    first = response.generations[0][0] if response.generations and response.generations[0] else None
    call = (getattr(getattr(first, "message", None), "response_metadata", None) or {}).get("dialectica") or {}
    return bool(call.get("cache_hit"))


class EpisodeBar(BaseCallbackHandler):
    """Shows ``fields`` (set when an episode ends) and ``model_calls`` (counted as calls end, from any episode in
    flight) on a tqdm bar."""

    def __init__(self, bar: Any) -> None:
        self.bar = bar
        self.fields: dict[str, Any] = {}
        self.model_calls = 0
        self._scripted: set[UUID] = set()  # calls in flight that a scripted model answers
        self._lock = threading.Lock()  # episodes in flight end their calls in their own threads

    def _show(self) -> None:
        self.bar.set_postfix(self.fields | ({"model_calls": self.model_calls} if self.model_calls else {}))

    def show(self, **fields: Any) -> None:
        with self._lock:
            self.fields.update(fields)
            self._show()

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: UUID, invocation_params: Any = None, **kwargs: Any
    ) -> None:
        if str((invocation_params or {}).get("_type", "")).endswith("scripted"):  # scripted, or faulty-scripted
            with self._lock:
                self._scripted.add(run_id)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            self._scripted.discard(run_id)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            if run_id in self._scripted:
                self._scripted.discard(run_id)
                return
        if _answered_by_cache(response):
            return
        with self._lock:
            self.model_calls += 1
            self._show()
