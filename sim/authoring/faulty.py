"""A chat model that fails on purpose: the wrapper behind ``participants.failure_rate`` and
``participants.role_failure_rate`` (what the rates mean, and how graphs retry, is in
``dialectica.sim.authoring.faults``)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.runnables import Runnable, RunnableBinding

from dialectica.sim.authoring.speakers import PARTICIPANT, ParticipantUnavailable, RoleUnavailable, rate_key


class FaultyChatModel(BaseChatModel):
    """``inner``, except that each call first fails with chance ``rate`` (a seeded draw from ``draws``).

    A failed call never reaches ``inner``, so a scripted voice's own draws stay as they were. Everything
    else is ``inner``'s: its reply, usage and accounting metadata (``dialectica_role``); tool binding (and so
    ``with_structured_output``) binds the inner model's tool arguments to this one.

    Attributes:
        inner: The model that answers when the call does not fail.
        rate: Chance that one call fails, in [0, 1).
        speaker: Who speaks (an expert's id, ``learner``, ``moderator``, ...), named in the error.
        kind: ``participant`` or ``system``: which exception, and which config key the error names.
        draws: The speaker's fault stream.
    """

    inner: BaseChatModel
    rate: float
    speaker: str
    kind: str = PARTICIPANT
    draws: Any = None

    def model_post_init(self, context: Any) -> None:
        if self.draws is None:
            self.draws = random.Random(0)
        self.metadata = {**(self.inner.metadata or {}), **(self.metadata or {})}  # the inner role's accounting

    @property
    def _llm_type(self) -> str:
        return f"faulty-{self.inner._llm_type}"

    def _fail(self) -> None:
        if self.draws.random() < self.rate:
            error = ParticipantUnavailable if self.kind == PARTICIPANT else RoleUnavailable
            raise error(f"{self.speaker} did not answer (simulated fault, {rate_key(self.kind)}={self.rate:g})")

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._fail()
        return self.inner._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, Any]:
        """The inner model's own tool binding, as arguments of this model's calls (faults included)."""
        bound = self.inner.bind_tools(tools, **kwargs)
        if not isinstance(bound, RunnableBinding) or bound.bound is not self.inner:
            raise NotImplementedError(
                f"{type(self.inner).__name__}.bind_tools does not bind call arguments; simulated faults cannot wrap it"
            )
        return self.bind(**bound.kwargs)
