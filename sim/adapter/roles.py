"""Models a graph's factory takes, replaceable by role through ``llm=``.

A factory ``build(model: BaseChatModel = ChatOpenAI(...), ...)`` is called once per knob values with a
:class:`RoleModel` for each model argument (the role is the argument's name). In each episode the role model
answers with the episode's model for that role: the run's ``llm`` config when it gives the role a model
(``llm=llamacpp``, ``llm.roles.<role>=...``; seeded and cached like every call), else the factory's default.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult

from dialectica.sim.authoring.params import ConfigError

_MODELS: ContextVar[Mapping[str, BaseChatModel] | None] = ContextVar("dialectica_role_models", default=None)


def model_arguments(factory: Callable[..., Any]) -> dict[str, BaseChatModel | None]:
    """A factory's model arguments (annotated as a chat model, or defaulting to one) and their defaults."""
    found = {}
    for name, p in inspect.signature(factory).parameters.items():
        annotation = p.annotation if not isinstance(p.annotation, str) else None
        default = p.default if isinstance(p.default, BaseChatModel) else None
        typed = isinstance(annotation, type) and issubclass(annotation, BaseChatModel)
        named = isinstance(p.annotation, str) and "ChatModel" in p.annotation
        if default is not None or typed or named:
            found[name] = default
    return found


class RoleModel(BaseChatModel):
    """A chat model that speaks with the current episode's model for ``role`` (the factory's default outside)."""

    role: str
    default: Any = None

    def model_post_init(self, context: Any) -> None:
        self.metadata = {**(self.metadata or {}), "dialectica_role": self.role}
        self.cache = False  # the model it speaks with has its own cache (or the graph-call hook)

    @property
    def _llm_type(self) -> str:
        return f"dialectica-role-{self.role}"

    def _current(self) -> BaseChatModel:
        model = (_MODELS.get() or {}).get(self.role) or self.default
        if model is None:
            raise ConfigError(
                f"the graph's model argument {self.role!r} has no default: add llm=llamacpp or "
                f"llm=openai (or llm.roles.{self.role}=...)"
            )
        return model

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._current()._generate_with_cache(messages, stop=stop, run_manager=run_manager, **kwargs)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        """Tools formatted as the default model formats them (OpenAI's format without one)."""
        if self.default is not None:
            bound = self.default.bind_tools(tools, **kwargs)
            return self.bind(**getattr(bound, "kwargs", {}))
        from langchain_core.utils.function_calling import convert_to_openai_tool

        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)


@contextmanager
def episode_models(models: Mapping[str, BaseChatModel]) -> Iterator[None]:
    """Within this block, role models speak with ``models``."""
    token = _MODELS.set(models)
    try:
        yield
    finally:
        _MODELS.reset(token)
