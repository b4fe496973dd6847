"""The episode bar of a run: episodes done, the share converged, errors, and the model calls made so far.

An LLM episode can take many minutes (the committee's, some 35 calls a round); the bar counts each model call
as it ends, through LangChain's callbacks, so it moves before the episode does. A call the call cache answered
is not counted, nor a scripted participant's reply: the count is the model's work.
"""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler


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
