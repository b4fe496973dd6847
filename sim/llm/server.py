"""``llm=openai``: any OpenAI-compatible chat-completions server (vLLM, llama.cpp's server, OpenAI...).

The config holds the *name* of the environment variable with the key; the key itself is read here
and goes nowhere else (not the cache key, not MLflow, not the logs). Requests to one server share a
:class:`~dialectica.sim.llm.throttle.Throttle` (``llm.max_in_flight``, ``llm.requests_per_minute``); a 429
or 503 reply is waited out, ``llm.rate_limit_retries`` times, without counting against the call's retries.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.llm.backends import Reply, Request
from dialectica.sim.llm.throttle import Throttle, retry_after
from dialectica.sim.secrets import scrub_url

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam


_THROTTLES: dict[str, Throttle] = {}
_THROTTLES_LOCK = threading.Lock()


def throttle(base_url: str, in_flight: int, per_minute: float) -> Throttle:
    """The one throttle of the server at ``base_url`` in this process (its first settings decide its limits)."""
    with _THROTTLES_LOCK:
        if base_url not in _THROTTLES:
            _THROTTLES[base_url] = Throttle(in_flight, per_minute)
        return _THROTTLES[base_url]


HTTP_LOGGERS = ("httpx", "httpcore", "openai")


def quiet_http_logs() -> None:
    """The HTTP client logs every request at INFO (one line per model call); WARNING unless a level was set."""
    for name in HTTP_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.WARNING)


class ServerBackend:
    def __init__(self, settings: Any) -> None:
        try:
            import openai
        except ModuleNotFoundError as exc:
            raise ConfigError(
                "llm=openai needs the openai package, which is not installed; install it with: pip install -e ."
            ) from exc
        if not settings.base_url:
            raise ConfigError("llm.base_url is not set; llm=openai needs the server's URL, e.g. http://127.0.0.1:8000/v1")
        url = urlsplit(str(settings.base_url))
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ConfigError(
                f"llm.base_url={scrub_url(str(settings.base_url))} is not an http(s) URL; give the "
                "server's /v1 URL, e.g. http://127.0.0.1:8000/v1"
            )
        key = "not-needed"
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env, "")
            if not key:
                raise ConfigError(f"llm.api_key_env={settings.api_key_env}: that environment variable is not set")
        quiet_http_logs()
        self.client = openai.OpenAI(base_url=settings.base_url, api_key=key, max_retries=0)
        self.model = settings.model
        self.throttle = throttle(settings.base_url, settings.max_in_flight, settings.requests_per_minute)
        self.rate_limit_retries, self.backoff_s = settings.rate_limit_retries, settings.backoff_s
        self._busy = (openai.RateLimitError, openai.InternalServerError)
        self.identity = {"backend": "openai", "base_url": settings.base_url, "model": settings.model}
        try:
            self.client.models.list(timeout=min(10.0, settings.timeout_s))
        except openai.APIConnectionError as exc:
            raise ConfigError(
                f"llm.base_url={settings.base_url}: no OpenAI-compatible server answers there ({type(exc).__name__})"
            ) from exc
        except openai.AuthenticationError as exc:
            raise ConfigError(f"llm.base_url={settings.base_url} refused the key in ${settings.api_key_env}") from exc

    def complete(self, request: Request) -> Reply:
        extra: dict[str, Any] = {}
        if request.schema is not None:
            extra["response_format"] = {"type": "json_object", "schema": request.schema}
        # Roles are system, user or assistant (``chat.render``), so each pair is one of openai's message kinds.
        messages = cast("list[ChatCompletionMessageParam]", [{"role": r, "content": c} for r, c in request.messages])
        for attempt in range(self.rate_limit_retries + 1):
            with self.throttle.slot():
                start = time.perf_counter()
                try:
                    response = self.client.chat.completions.create(
                        model=self.model,
                        messages=messages,
                        temperature=request.temperature,
                        top_p=request.top_p,
                        max_tokens=request.max_tokens,
                        seed=request.seed,
                        timeout=request.timeout_s,
                        **extra,
                    )
                    break
                except self._busy as exc:  # 429 / 5xx: the server asks for patience, not a different request
                    if exc.status_code not in (429, 503) or attempt == self.rate_limit_retries:
                        raise
                    wait = retry_after(exc.response.headers, attempt, self.backoff_s)
            time.sleep(wait)  # outside the slot: a waiting call does not hold up the others
        usage = response.usage
        return Reply(
            text=response.choices[0].message.content or "",
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            seconds=time.perf_counter() - start,
            rate_limited=attempt,
            cached_tokens=getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None) or 0,
        )


def build(settings: Any) -> ServerBackend:
    return ServerBackend(settings)
