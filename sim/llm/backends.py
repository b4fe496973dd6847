"""Model backends: what one completion request and reply are, and the registry of backends.

A backend turns a :class:`Request` into a :class:`Reply` and says, in ``identity``, what of its
model belongs in the cache key. Each backend is a module with ``build(settings)``, named here by its
``llm.backend`` value and imported only when chosen, so a missing optional package fails with a
one-line error there and nowhere else. Every backend comes wrapped in :class:`Scrubbed`: a server may echo
the key or its URL back, in a reply or in an error body, and neither reaches a record, a log or the cache.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from importlib import import_module
from typing import Any, Protocol

from dialectica.sim import secrets


@dataclass(frozen=True)
class Request:
    messages: tuple[tuple[str, str], ...]  # (role, content): system | user | assistant
    seed: int
    temperature: float
    top_p: float
    max_tokens: int
    timeout_s: float
    schema: dict[str, Any] | None = None  # a JSON schema the reply must follow (grammar-constrained where possible)


@dataclass(frozen=True)
class Reply:
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float = 0.0  # the model's own time: waiting for a shared model is not counted
    rate_limited: int = 0  # 429/503 replies waited out before this one
    cached_tokens: int = 0  # prompt tokens served from the backend's prefix cache (not evaluated again)


class Backend(Protocol):
    identity: dict[str, Any]

    def complete(self, request: Request) -> Reply: ...


BACKENDS: dict[str, str] = {"llamacpp": "dialectica.sim.llm.llamacpp", "openai": "dialectica.sim.llm.server"}


class Scrubbed:
    """A backend whose replies and errors are scrubbed of the process's secrets (``secrets.scrub``)."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.identity = inner.identity

    def complete(self, request: Request) -> Reply:
        try:
            reply = self.inner.complete(request)
        except Exception as exc:
            secrets.scrub_exception(exc)
            raise
        return replace(reply, text=secrets.scrub(reply.text))


def backend(settings: Any) -> Backend:
    """The backend ``settings.backend`` names (checked by ``LLMSettings.validate``), built from ``settings``;
    an error building it (an unreachable server, a refused key) is scrubbed like the calls' errors."""
    try:
        built = import_module(BACKENDS[settings.backend]).build(settings)
    except Exception as exc:
        secrets.scrub_exception(exc)
        raise
    return Scrubbed(built)
