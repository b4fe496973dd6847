"""A langchain-core chat model whose replies come from a seeded Python policy."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

Policy = Callable[[list[BaseMessage]], str]


def last_human(messages: Sequence[BaseMessage]) -> str:
    """The text of the latest human message: what a scripted policy answers."""
    return next(str(m.content) for m in reversed(messages) if m.type == "human")


def count_tokens(text: str) -> int:
    """Whitespace tokens: the scripted model's stand-in for a tokenizer."""
    return len(text.split())


class ScriptedChatModel(BaseChatModel):
    """Chat model that answers with ``policy(messages)``.

    The policy sees exactly what an LLM would see (the messages) and returns
    natural-language text, so the graph must parse its output like any model's.
    Usage metadata counts whitespace tokens so accounting works the same way.

    Attributes:
        policy: ``(messages) -> str``, the participant's reply to what it was shown.
        role: The role its calls are counted under (``role/<role>/calls_mean``...); ``scripted`` by default.
    """

    policy: Any
    role: str = "scripted"

    def model_post_init(self, context: Any) -> None:
        self.metadata = {**(self.metadata or {}), "dialectica_role": self.role}  # per-role accounting

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = self.policy(messages)
        n_in = sum(count_tokens(str(m.content)) for m in messages)
        n_out = count_tokens(text)
        message = AIMessage(
            content=text,
            usage_metadata={"input_tokens": n_in, "output_tokens": n_out, "total_tokens": n_in + n_out},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
