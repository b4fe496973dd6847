"""Per-episode accounting through LangChain callbacks: node wall time, and model calls, tokens and
seconds by node and by role (the ``dialectica_role`` metadata every project chat model carries; else the node
that called the model)."""

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
        self.node_path: list[str] = []  # nodes in the order they started
        self.calls: dict[str, int] = defaultdict(int)
        self.tokens: dict[str, int] = defaultdict(int)
        self._roles: dict[UUID, str] = {}
        self.role_calls: dict[str, int] = defaultdict(int)
        self.role_tokens: dict[str, int] = defaultdict(int)
        self.role_seconds: dict[str, float] = defaultdict(float)
        self.parse_failures = 0
        self.empty_replies = 0
        self.cache_lookups = 0  # calls of models with a call cache
        self.cache_hits = 0
        self.role_model_tokens: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # prompt, generated, cached
        self.rate_limited = 0  # 429/503 replies waited out

    def on_chain_start(
        self, serialized: Any, inputs: Any, *, run_id: UUID, metadata: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        node = (metadata or {}).get("langgraph_node")
        if node is not None and kwargs.get("name") == node:
            self._started[run_id] = (node, time.perf_counter())
            self.node_path.append(node)

    def _end(self, run_id: UUID) -> None:
        if run_id in self._started:
            node, t0 = self._started.pop(run_id)
            self.node_seconds[node].append(time.perf_counter() - t0)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: UUID, metadata: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        node = (metadata or {}).get("langgraph_node", "outside")
        self._started[run_id] = (node, time.perf_counter())
        # a model of a graph used as it is carries no role of ours: it is named by the node that called it
        self._roles[run_id] = (metadata or {}).get("dialectica_role") or node

    def _call_end(self, run_id: UUID) -> tuple[str, str, float]:
        node, t0 = self._started.pop(run_id, ("outside", time.perf_counter()))
        role = self._roles.pop(run_id, node)
        self.calls[node] += 1
        self.role_calls[role] += 1
        return node, role, time.perf_counter() - t0

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Seconds are the model's own when it reports them (an LLM shared by parallel branches
        serves one at a time, and the waiting is not model time), else the call's wall time."""
        node, role, wall = self._call_end(run_id)
        seconds = None
        for generations in response.generations:
            for generation in generations:
                message = getattr(generation, "message", None)
                usage = getattr(message, "usage_metadata", None) or {}
                self.tokens[node] += int(usage.get("total_tokens", 0))
                self.role_tokens[role] += int(usage.get("total_tokens", 0))
                call = (getattr(message, "response_metadata", None) or {}).get("dialectica")
                if call:
                    self.cache_lookups += 1
                    self.cache_hits += bool(call["cache_hit"])
                    self.parse_failures += bool(call["parse_failed"])
                    self.empty_replies += bool(call["empty"])
                    self.rate_limited += int(call.get("rate_limited", 0))
                    seconds = (seconds or 0.0) + call["model_seconds"]
                    if call.get("cache_hit") is False and "tokens" in call:  # the model ran: what it read and wrote
                        for i, n in enumerate(call["tokens"]):
                            self.role_model_tokens[role][i] += int(n)
        self.role_seconds[role] += wall if seconds is None else seconds

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        _, role, wall = self._call_end(run_id)
        self.role_seconds[role] += wall

    def summary(self) -> dict[str, Any]:
        """What the calls were: the same for the same seed and config (it goes in the record's ``usage``)."""
        return {
            "llm_calls": sum(self.calls.values()),
            "tokens_total": sum(self.tokens.values()),
            "calls_by_node": dict(self.calls),
            "tokens_by_node": dict(self.tokens),
            "calls_by_role": dict(self.role_calls),
            "tokens_by_role": dict(self.role_tokens),
            "parse_failures": self.parse_failures,
            "empty_replies": self.empty_replies,
        }

    def runtime(self) -> dict[str, Any]:
        """How the calls went on this machine this time (it goes in the record's ``timings``)."""
        return {
            "node_path": list(self.node_path),
            "llm_seconds": sum(self.role_seconds.values()),
            "llm_seconds_by_role": dict(self.role_seconds),
            "cache_lookups": self.cache_lookups,
            "cache_hits": self.cache_hits,
            "rate_limited": self.rate_limited,
            # per role: [prompt tokens, generated tokens, prompt tokens served from the prefix cache] of the calls
            # the model ran (call-cache hits excluded); the prefix cache depends on the order of calls
            "model_tokens_by_role": {role: list(n) for role, n in self.role_model_tokens.items()},
        }
