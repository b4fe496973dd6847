"""Who speaks for each role: the scripted voice or an LLM, decided per role from the ``llm`` config.

System roles (moderator, interlocutor, chair, judges, ...) follow ``llm.system_roles``; surrogate
participants (experts, learners, members, interviewees) are LLMs with their persona rendered into
the system prompt; ``llm.roles.<role>`` overrides either, with ``scripted``, ``llm`` or a mapping of
settings (another backend, model or temperature for that role alone).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.authoring.speakers import PARTICIPANT, SYSTEM, scripted_voice
from dialectica.sim.llm.backends import Backend, backend
from dialectica.sim.llm.cache import open_cache
from dialectica.sim.llm.settings import LLMSettings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

_BACKENDS: dict[str, Backend] = {}


def _backend(settings: LLMSettings) -> Backend:
    """One backend per distinct settings and process (a local model loads once)."""
    key = json.dumps(asdict(settings), sort_keys=True, default=str)
    if key not in _BACKENDS:
        _BACKENDS[key] = backend(settings)
    return _BACKENDS[key]


def role_seed(seed: int, name: str, offset: int) -> int:
    """A reproducible seed for one speaker in one episode."""
    return int(hashlib.sha256(f"{seed}:{name}:{offset}".encode()).hexdigest()[:8], 16)


@dataclass(frozen=True)
class Voices:
    """The models behind one run's roles.

    Attributes:
        settings: The ``llm`` config.
        surrogate: True when ``participants=surrogate``: participants are LLMs.
    """

    settings: LLMSettings = LLMSettings()
    surrogate: bool = False

    def _own(self, role: str, kind: str) -> LLMSettings | None:
        if kind == PARTICIPANT and not self.surrogate:
            return None
        return self.settings.for_role(role, kind)

    def speaker(
        self,
        role: str,
        kind: str,
        seed: int,
        scripted: Callable[[], BaseChatModel] | None,
        persona: str | None = None,
        name: str | None = None,
    ) -> BaseChatModel:
        """The model for ``role`` (accounted under that name); ``name`` tells apart speakers sharing a role.

        Raises:
            ConfigError: when the role is set to scripted but has no scripted voice here.
        """
        own = self._own(role, kind)
        if own is None:
            return scripted_voice(role, scripted)
        from dialectica.sim.llm.chat import (  # lazy: start-up (langchain-core, langsmith)
            LLMChatModel,
        )

        return LLMChatModel(
            backend=_backend(own),
            settings=own,
            role=role,
            seed=role_seed(seed, name or role, own.seed),
            persona=persona,
            call_cache=open_cache(own.cache) if own.cache else None,
            metadata={"dialectica_role": role},
            cache=False,  # its own call cache serves it; LangChain's global hook is for graphs' own models
        )

    def is_llm(self, role: str, kind: str) -> bool:
        """Whether an LLM speaks for ``role`` (a ``kind`` speaker)."""
        return self._own(role, kind) is not None

    def default_concurrency(self, roles: Iterable[tuple[str, str]]) -> int:
        """Episodes in flight when ``max_concurrency`` is null: 1 when every role is scripted or any runs on the
        in-process llama.cpp model (one model, one call at a time), else the smallest ``max_in_flight`` of the
        servers the run's roles use."""
        models = [own for role, kind in dict(roles).items() if (own := self._own(role, kind)) is not None]
        if not models or any(own.backend != "openai" for own in models):
            return 1
        return min(own.max_in_flight for own in models)

    def require(self, role: str) -> None:
        """Raises a ConfigError when ``role`` (a role only a model can play) would be scripted."""
        if self._own(role, SYSTEM) is None:
            raise ConfigError(
                f"the {role} needs a model: add llm=llamacpp or llm=openai (or '+llm.roles.{role}={{backend: llamacpp}}'), "
                f"or give it one in Python (model=...)"
            )

    def check(self, roles: Iterable[tuple[str, str]]) -> None:
        """Rejects unknown role names and builds every backend a run will use, so a missing package,
        model file or server fails before anything runs.

        Args:
            roles: (role, kind) pairs of the graphs in the run.
        """
        kinds = dict(roles)
        unknown = sorted(set(self.settings.roles) - set(kinds))
        if unknown:
            raise ConfigError(f"unknown llm.roles.{unknown[0]}; valid roles here: {', '.join(sorted(kinds))}")
        for role, kind in sorted(kinds.items()):
            own = self._own(role, kind)
            if own is not None:
                _backend(own)


def voices(llm: dict[str, Any], participants: str) -> Voices:
    """Voices from the ``llm`` config mapping and the participant kind."""
    return Voices(LLMSettings.from_dict(llm), surrogate=participants == "surrogate")
