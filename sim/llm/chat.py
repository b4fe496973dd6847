"""A langchain-core chat model over any backend: persona, cache, timeout, retries, structured output.

Everything a graph sees is an ordinary chat model: it ``invoke``s messages and reads text. What the
harness needs from each call travels in ``response_metadata["dialectica"]`` (role, cache hit,
attempts, parse failure, model seconds) and ``usage_metadata`` (tokens), where the episode meter
picks it up.
"""

from __future__ import annotations

import time
from dataclasses import asdict, replace
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from dialectica.sim.authoring.structured import instruction, read_json, response_format
from dialectica.sim.llm.backends import Reply, Request
from dialectica.sim.llm.cache import CallCache, cache_key

_ROLE = {"system": "system", "human": "user", "ai": "assistant"}


def render(messages: list[BaseMessage], persona: str | None) -> tuple[tuple[str, str], ...]:
    """(role, content) pairs; a persona goes first in the system prompt, ahead of the graph's instructions."""
    pairs = [(_ROLE.get(m.type, "user"), str(m.content)) for m in messages]
    if persona:
        if pairs and pairs[0][0] == "system":
            pairs[0] = ("system", f"{persona}\n\n{pairs[0][1]}")
        else:
            pairs.insert(0, ("system", persona))
    return tuple(pairs)


class LLMChatModel(BaseChatModel):
    """One role's model for one episode.

    Attributes:
        backend: Where completions come from (llama.cpp in process, or a server).
        settings: The role's ``LLMSettings`` (sampling, timeout, retries, backoff).
        role: Accounting name (``moderator``, ``expert``, ...).
        seed: The role's seed in this episode; call n samples with seed + 7919 n, its retries with the
            seeds after that.
        persona: System-prompt text rendering who a surrogate participant is.
        cache: The call cache, or None.
    """

    backend: Any
    settings: Any
    role: str
    seed: int
    persona: str | None = None
    call_cache: Any = None
    sleep: Any = time.sleep
    calls: int = 0  # calls so far: each call samples with its own seed, as a live model would

    def _next_seed(self) -> int:
        """The seed of the next call: the same sequence of calls gets the same seeds (and cache keys)."""
        seed = (self.seed + 7919 * self.calls) % 2**31
        self.calls += 1
        return seed

    @property
    def _llm_type(self) -> str:
        return f"dialectica-{self.settings.backend}"

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:
        """Replies as a mapping under a JSON ``schema`` (a dict), constrained on the backend (llama.cpp's grammar,
        a server's ``response_format``): what LangChain's structured-output consumers (openevals' LLM-as-judge)
        call. A reply that never fits the schema after the retries raises ``ValueError``."""
        from langchain_core.runnables import RunnableLambda

        if not isinstance(schema, dict):
            raise TypeError("this model takes a JSON schema (a dict) for structured output")
        shape = {k: v for k, v in schema.items() if k not in ("title", "description")}

        def parse(message: AIMessage) -> Any:
            value = read_json(str(message.content), shape)
            if value is None:
                raise ValueError(f"the reply does not fit the schema: {str(message.content)[:200]!r}")
            return value

        return self.bind(response_format=response_format(shape)) | RunnableLambda(parse)

    def _request(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> Request:
        schema = (kwargs.get("response_format") or {}).get("schema")
        s = self.settings
        turns = render(messages, self.persona)
        if schema is not None:  # the grammar forces the shape; the model still needs to know what goes in it
            turns = (*turns[:-1], (turns[-1][0], f"{turns[-1][1]}\n{instruction(schema)}"))
        return Request(
            messages=turns,
            seed=self._next_seed(),
            temperature=float(kwargs.get("temperature", s.temperature)),  # a caller's own (an LLM judge's 0)
            top_p=s.top_p,
            max_tokens=int(kwargs.get("max_tokens", s.json_max_tokens if schema else s.max_tokens)),  # a caller's own
            timeout_s=s.timeout_s,
            schema=schema,
        )

    def _attempts(self, request: Request) -> dict[str, Any]:
        """Calls until a usable reply: transient errors back off exponentially, unusable replies (empty,
        or not valid under the schema) retry at once with the next seed. Raises the last error when no
        attempt got a reply at all."""
        s = self.settings
        replies: list[Reply] = []
        error: Exception | None = None
        usable = False
        for attempt in range(s.retries + 1):
            try:
                reply = self.backend.complete(replace(request, seed=request.seed + attempt))
            except Exception as exc:  # noqa: BLE001 - timeouts, refused connections, server errors: all retried
                error = exc
                if attempt < s.retries:
                    self.sleep(s.backoff_s * 2**attempt)
                continue
            replies.append(reply)
            usable = read_json(reply.text, request.schema) is not None if request.schema else bool(reply.text.strip())
            if usable:
                break
        if not replies:
            assert error is not None  # every attempt raised
            raise error
        text = replies[-1].text
        return {
            "text": text,
            "prompt_tokens": sum(r.prompt_tokens for r in replies),
            "completion_tokens": sum(r.completion_tokens for r in replies),
            "attempts": attempt + 1,
            "parse_failed": not usable and request.schema is not None,
            "empty": not text.strip(),
            "seconds": sum(r.seconds for r in replies),
            "rate_limited": sum(r.rate_limited for r in replies),
            "cached_tokens": sum(r.cached_tokens for r in replies),
        }

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        request = self._request(messages, kwargs)
        key = cache_key(
            {
                "model": self.backend.identity,
                "request": asdict(request) | {"timeout_s": None},
                "retries": self.settings.retries,
            }
        )
        cache: CallCache | None = self.call_cache
        result = cache.get(key) if cache is not None else None
        hit = result is not None
        if result is None:
            result = self._attempts(request)
            if cache is not None:
                cache.put(key, result)
        n_in, n_out = result["prompt_tokens"], result["completion_tokens"]
        message = AIMessage(
            content=result["text"],
            usage_metadata={"input_tokens": n_in, "output_tokens": n_out, "total_tokens": n_in + n_out},
            response_metadata={
                "dialectica": {
                    "role": self.role,
                    "cache_hit": hit,
                    "attempts": 0 if hit else result["attempts"],
                    "parse_failed": result["parse_failed"],
                    "empty": result["empty"],
                    "model_seconds": 0.0 if hit else result["seconds"],
                    "rate_limited": 0 if hit else result.get("rate_limited", 0),
                    "tokens": [n_in, n_out, 0 if hit else result.get("cached_tokens", 0)],
                }
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
