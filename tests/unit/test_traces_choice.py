"""``traces=``: which episodes become MLflow traces; the LLM judge's worked examples in its prompt."""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage

from dialectica.sim.adapter.judges import Example, LLMJudge
from dialectica.sim.config.shape import Traces


def test_auto_traces_every_episode_with_a_model_and_none_without():
    assert Traces().picks(500, 0, models=True) == frozenset(range(500))
    assert Traces().picks(500, 0, models=False) == frozenset()


def test_first_k_a_seeded_sample_and_none():
    assert Traces("first", 3).picks(10, 0, models=True) == {0, 1, 2}
    sample = Traces("sample", 4).picks(100, 7, models=False)
    assert len(sample) == 4 and sample == Traces("sample", 4).picks(100, 7, models=False)
    assert sample != Traces("sample", 4).picks(100, 8, models=False)
    assert Traces("sample", 40).picks(10, 0, models=False) == frozenset(range(10))
    assert Traces("none").picks(10, 0, models=True) == frozenset()


class _Reading(FakeListChatModel):
    """Answers a fixed verdict and keeps the prompts it read."""

    seen: list[str] = []

    def _call(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
        self.seen.append(messages[-1].content)
        return super()._call(messages, stop, run_manager, **kwargs)


def test_an_llm_judge_reads_the_worked_examples_before_the_conversation():
    model = _Reading(responses=['{"reason": "refunded", "passed": true}'] * 2)
    examples = (Example("USER: refund AB1\nASSISTANT: I cannot.", False, "refused", 3), Example("USER: hi", True))
    dialogue = [HumanMessage("Refund booking CD5678"), AIMessage("Refunded.")]
    plain = LLMJudge(rubric="refund issued", model=model).judge(dialogue, {"name": "s"}, {}, cast=_Cast())
    taught = LLMJudge(rubric="refund issued", model=model, examples=examples).judge(dialogue, {"name": "s"}, {}, _Cast())
    assert plain.passed and taught.passed
    before, after = model.seen
    assert "<example" not in before
    first, second = after.index("<example 1>\nUSER: refund AB1"), after.index("<example 2>")
    assert first < second < after.index("<conversation>\nUSER: Refund")
    assert "A person judged example 1: passed false. Reason: refused" in after


class _Cast:
    callbacks: list[object] = []


def test_examples_that_are_not_examples_are_one_clear_error():
    import pytest

    from dialectica.sim.authoring.params import ConfigError

    with pytest.raises(ConfigError, match=r"takes Example objects \(dialectica.judge_examples"):
        LLMJudge(examples=({"transcript": "x", "passed": True},))  # type: ignore[arg-type]


class _Seeing(FakeListChatModel):
    """The run's model for the judge role: keeps the sampling arguments of each call."""

    kwargs: list[dict] = []

    def _call(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
        self.kwargs.append(kwargs)
        return super()._call(messages, stop, run_manager, **kwargs)


class _RunCast:
    callbacks: list[object] = []

    def __init__(self) -> None:
        self.seen = _Seeing(responses=['{"reason": "refunded", "passed": true}'] * 2)

    def model(self, role: str, persona: str) -> _Seeing:
        assert role == "judge"
        return self.seen


def test_an_llm_judge_on_the_runs_model_samples_at_temperature_zero_unless_told():
    dialogue = [HumanMessage("Refund booking CD5678"), AIMessage("Refunded.")]
    cast = _RunCast()
    LLMJudge(rubric="refund issued").judge(dialogue, {"name": "s"}, {}, cast)
    LLMJudge(rubric="refund issued", temperature=None).judge(dialogue, {"name": "s"}, {}, cast)
    assert cast.seen.kwargs[0]["temperature"] == 0.0 and "temperature" not in cast.seen.kwargs[1]
