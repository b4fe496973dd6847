"""``llm=openai``: any OpenAI-compatible chat-completions server (vLLM, llama.cpp's server, OpenAI...).

The config holds the *name* of the environment variable with the key; the key itself is read here
and goes nowhere else (not the cache key, not MLflow, not the logs).
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any, cast

from dialectica.sim.llm.backends import Reply, Request
from dialectica.sim.params import ConfigError

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam


class ServerBackend:
    def __init__(self, settings: Any) -> None:
        try:
            import openai
        except ModuleNotFoundError as exc:
            raise ConfigError("llm=openai needs the openai package, which is not installed; "
                              "install it with: pip install -e .") from exc
        if not settings.base_url:
            raise ConfigError("llm.base_url is not set; llm=openai needs the server's URL, e.g. http://127.0.0.1:8000/v1")
        key = "not-needed"
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env, "")
            if not key:
                raise ConfigError(f"llm.api_key_env={settings.api_key_env}: that environment variable is not set")
        self.client = openai.OpenAI(base_url=settings.base_url, api_key=key, max_retries=0)
        self.model = settings.model
        self.identity = {"backend": "openai", "base_url": settings.base_url, "model": settings.model}
        try:
            self.client.models.list(timeout=min(10.0, settings.timeout_s))
        except openai.APIConnectionError as exc:
            raise ConfigError(f"llm.base_url={settings.base_url}: no OpenAI-compatible server answers there "
                              f"({type(exc).__name__})") from exc
        except openai.AuthenticationError as exc:
            raise ConfigError(f"llm.base_url={settings.base_url} refused the key in ${settings.api_key_env}") from exc

    def complete(self, request: Request) -> Reply:
        start = time.perf_counter()
        extra: dict[str, Any] = {}
        if request.schema is not None:
            extra["response_format"] = {"type": "json_object", "schema": request.schema}
        # Roles are system, user or assistant (``chat.render``), so each pair is one of openai's message kinds.
        messages = cast("list[ChatCompletionMessageParam]", [{"role": r, "content": c} for r, c in request.messages])
        response = self.client.chat.completions.create(
            model=self.model, messages=messages,
            temperature=request.temperature, top_p=request.top_p, max_tokens=request.max_tokens, seed=request.seed,
            timeout=request.timeout_s, **extra,
        )
        usage = response.usage
        return Reply(text=response.choices[0].message.content or "", prompt_tokens=usage.prompt_tokens if usage else 0,
                     completion_tokens=usage.completion_tokens if usage else 0, seconds=time.perf_counter() - start)


def build(settings: Any) -> ServerBackend:
    return ServerBackend(settings)
