"""The graph's own model calls, cached per episode seed through LangChain's cache hook.

A graph used as it is builds its own chat models; the harness cannot seed them. What it can do is answer the
same call in the same episode the same way: with ``llm.cache`` set, every model call inside an episode of a
graph used as it is is looked up by (model and settings, messages, episode seed, how many times this episode
asked exactly this). A rerun with the same seed replays the graph's replies, a sweep that changes only a
threshold reuses every call made before the threshold mattered, and another seed asks afresh. Outside such
an episode the hook answers nothing, so no other model is affected.
"""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from langchain_core._api import LangChainBetaWarning
from langchain_core.caches import BaseCache
from langchain_core.load import dumpd, load

from dialectica.sim.llm.cache import CallCache, cache_key, open_cache


@dataclass
class _Scope:
    """One episode's view of the cache (the file opened at the graph's first model call: a graph without a model
    leaves none behind)."""

    path: str
    seed: int
    asked: dict[tuple[str, str], int] = field(default_factory=dict)
    pending: dict[tuple[str, str], str] = field(default_factory=dict)
    lookups: int = 0
    hits: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def cache(self) -> CallCache:
        return open_cache(self.path)  # one object per file and process


_SCOPE: ContextVar[_Scope | None] = ContextVar("dialectica_graph_cache", default=None)


_SAID = ("type", "content", "name", "tool_calls", "tool_call_id")  # what a message says; not its usage or metadata


def canonical(prompt: str) -> str:
    """The messages of a prompt as what they say: a replayed reply carries other metadata than the fresh one
    (usage, cost, ids), and the next call's key must not depend on which it was."""
    try:
        messages = json.loads(prompt)
        said = [{k: m["kwargs"][k] for k in _SAID if m["kwargs"].get(k) not in (None, [], "")} for m in messages]
    except (ValueError, TypeError, KeyError):
        return prompt
    return json.dumps(said, sort_keys=True)


class SeededCache(BaseCache):
    """LangChain's cache hook, answering only inside an episode scope (``episode_cache``)."""

    def lookup(self, prompt: str, llm_string: str) -> Sequence[Any] | None:
        scope = _SCOPE.get()
        if scope is None:
            return None
        prompt = canonical(prompt)
        with scope.lock:
            n = scope.asked.get((prompt, llm_string), 0)
            scope.asked[(prompt, llm_string)] = n + 1
            key = cache_key({"graph_model": llm_string, "prompt": prompt, "seed": scope.seed, "n": n})
            scope.pending[(prompt, llm_string)] = key
            scope.lookups += 1
        value = scope.cache.get(key)
        if value is None:
            return None
        with scope.lock:
            scope.hits += 1
        with warnings.catch_warnings():  # langchain-core marks `load` beta; the harness's own use is no news to users
            warnings.simplefilter("ignore", LangChainBetaWarning)
            return [load(g, allowed_objects="core") for g in value["generations"]]

    def update(self, prompt: str, llm_string: str, return_val: Sequence[Any]) -> None:
        scope = _SCOPE.get()
        if scope is None:
            return
        with scope.lock:
            key = scope.pending.pop((canonical(prompt), llm_string), None)
        if key is not None:
            scope.cache.put(key, {"generations": [dumpd(g) for g in return_val]})

    def clear(self, **kwargs: Any) -> None:
        """The on-disk cache is shared by runs; clearing it is deleting its file."""


_INSTALL = threading.Lock()


def _install() -> None:
    """Sets the hook once per process (LangChain's global cache is one object)."""
    from langchain_core.globals import get_llm_cache, set_llm_cache

    with _INSTALL:
        if not isinstance(get_llm_cache(), SeededCache):
            set_llm_cache(SeededCache())


@contextmanager
def episode_cache(path: str | None, seed: int) -> Iterator[_Scope | None]:
    """Within this block, the graph's model calls are cached under ``seed`` in the file ``path`` (None: not cached)."""
    if path is None:
        yield None
        return
    _install()
    scope = _Scope(path, seed)
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)
