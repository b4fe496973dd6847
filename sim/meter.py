"""Per-episode accounting through LangChain callbacks: node wall time, model calls, tokens."""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler


class EpisodeMeter(BaseCallbackHandler):
    """Collects, for one graph invocation, the seconds of every node run and every model call.

    A node run is a chain run whose name equals its ``langgraph_node`` metadata;
    routers and inner runnables have other names and are not counted.
    """

    def __init__(self) -> None:
        self._started: dict[UUID, tuple[str, float]] = {}
        self.node_seconds: dict[str, list[float]] = defaultdict(list)
        self.calls: dict[str, int] = defaultdict(int)
        self.tokens: dict[str, int] = defaultdict(int)

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, metadata: dict | None = None,
                       **kwargs: Any) -> None:
        node = (metadata or {}).get("langgraph_node")
        if node is not None and kwargs.get("name") == node:
            self._started[run_id] = (node, time.perf_counter())

    def _end(self, run_id: UUID) -> None:
        if run_id in self._started:
            node, t0 = self._started.pop(run_id)
            self.node_seconds[node].append(time.perf_counter() - t0)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID, metadata: dict | None = None,
                            **kwargs: Any) -> None:
        self._started[run_id] = ((metadata or {}).get("langgraph_node", "outside"), time.perf_counter())

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        node, _ = self._started.pop(run_id, ("outside", 0.0))
        self.calls[node] += 1
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None) or {}
                self.tokens[node] += int(usage.get("total_tokens", 0))

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        node, _ = self._started.pop(run_id, ("outside", 0.0))
        self.calls[node] += 1

    def summary(self) -> dict[str, Any]:
        return {
            "llm_calls": sum(self.calls.values()),
            "tokens_total": sum(self.tokens.values()),
            "calls_by_node": dict(self.calls),
            "tokens_by_node": dict(self.tokens),
        }
