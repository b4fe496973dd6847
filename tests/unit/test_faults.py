"""Simulated faults (``dialectica.sim.authoring.faults``): the seeded failing wrapper, retries, where casts apply them."""

from __future__ import annotations

import contextlib
import re

import pytest
from langchain_core.messages import HumanMessage

from dialectica.sim.authoring.cast import CastRequest
from dialectica.sim.authoring.faults import FaultRates, attempt, faulty, retry
from dialectica.sim.authoring.faulty import FaultyChatModel
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.authoring.scripted import ScriptedChatModel
from dialectica.sim.authoring.speakers import PARTICIPANT, SYSTEM, ParticipantUnavailable, RoleUnavailable
from dialectica.sim.engine.meter import EpisodeMeter
from dialectica.sim.llm.chat import LLMChatModel
from dialectica.sim.llm.settings import LLMSettings
from tests.unit.test_llm_chat import FakeBackend

ASK = [HumanMessage("Where do you stand?")]


class Counter:
    """A scripted policy that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, messages) -> str:
        self.calls += 1
        return f"answer {self.calls}"


def _pattern(model, calls: int) -> list[bool]:
    """Which of ``calls`` calls failed."""
    failed = []
    for _ in range(calls):
        try:
            model.invoke(ASK)
            failed.append(False)
        except ParticipantUnavailable:
            failed.append(True)
    return failed


def _wrapped(rate: float, seed: int = 7, speaker: str = "ada") -> tuple[FaultyChatModel, Counter]:
    policy = Counter()
    model = faulty(ScriptedChatModel(policy=policy, role="expert"), rate, seed, speaker)
    assert isinstance(model, FaultyChatModel)
    return model, policy


@pytest.mark.parametrize("rate", [0.1, 0.3, 0.5, 0.9])
def test_the_share_of_failed_calls_is_the_rate(rate):
    model, policy = _wrapped(rate)
    failed = _pattern(model, 3000)
    assert sum(failed) / len(failed) == pytest.approx(rate, abs=0.03)
    assert policy.calls == failed.count(False)  # a failed call never reaches the inner model


def test_the_same_seed_and_speaker_fail_the_same_calls_and_others_do_not():
    first, second = _pattern(_wrapped(0.4)[0], 200), _pattern(_wrapped(0.4)[0], 200)
    assert first == second
    assert _pattern(_wrapped(0.4, seed=8)[0], 200) != first
    assert _pattern(_wrapped(0.4, speaker="ben")[0], 200) != first


def test_rate_zero_returns_the_model_itself():
    inner = ScriptedChatModel(policy=Counter(), role="expert")
    assert faulty(inner, 0.0, 7, "ada") is inner
    assert faulty(inner, 0, 7, "ada", SYSTEM) is inner


def test_replies_pass_through_unchanged():
    model, _ = _wrapped(0.0001)
    reply = model.invoke(ASK)
    assert reply.content == "answer 1" and reply.usage_metadata["output_tokens"] == 2


def test_the_error_names_the_speaker_the_kind_and_the_config_key():
    participant = faulty(ScriptedChatModel(policy=Counter()), 0.999, 1, "ada")
    with pytest.raises(ParticipantUnavailable, match=r"ada did not answer .*participants\.failure_rate=0\.999"):
        participant.invoke(ASK)
    role = faulty(ScriptedChatModel(policy=Counter()), 0.999, 1, "moderator", SYSTEM)
    with pytest.raises(RoleUnavailable, match=r"moderator did not answer .*participants\.role_failure_rate=0\.999"):
        role.invoke(ASK)


def test_calls_are_accounted_under_the_inner_role_failed_ones_included():
    meter = EpisodeMeter()
    model, policy = _wrapped(0.5)
    for _ in range(40):
        with contextlib.suppress(ParticipantUnavailable):
            model.invoke(ASK, {"callbacks": [meter]})
    assert meter.role_calls == {"expert": 40} and policy.calls < 40


def test_an_llm_model_keeps_its_own_reply_metadata():
    llm = LLMChatModel(
        backend=FakeBackend(["I agree."]),
        settings=LLMSettings(backend="llamacpp"),
        role="member",
        seed=3,
        metadata={"dialectica_role": "member"},
    )
    model = faulty(llm, 0.0001, 1, "m1")
    reply = model.invoke(ASK)
    assert reply.content == "I agree." and reply.response_metadata["dialectica"]["role"] == "member"
    assert model.metadata["dialectica_role"] == "member"


seen_tools: list = []  # the tools each call of a Tooled model was given


class Tooled(ScriptedChatModel):
    """A scripted model that binds tools as call arguments, as provider chat models do."""

    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=[t.__name__ for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        seen_tools.append(kwargs.get("tools"))
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_tool_binding_reaches_the_inner_model_and_keeps_the_faults():
    def lookup(query: str) -> str:
        """Looks something up."""
        return query

    inner = Tooled(policy=Counter())
    bound = faulty(inner, 0.5, 7, "ada").bind_tools([lookup])
    failed = 0
    for _ in range(20):
        try:
            bound.invoke(ASK)
        except ParticipantUnavailable:
            failed += 1
    assert 0 < failed < 20
    assert seen_tools == [["lookup"]] * (20 - failed)


def test_attempt_retries_with_backoff_then_reports_the_last_error():
    sleeps: list[float] = []
    calls = iter([ValueError("one"), ValueError("two"), "done"])

    def flaky():
        item = next(calls)
        if isinstance(item, Exception):
            raise item
        return item

    assert attempt(flaky, 3, 0.5, sleeps.append) == ("done", 3, None) and sleeps == [0.5, 1.0]
    sleeps.clear()

    def dead():
        raise TimeoutError("gone")

    assert attempt(dead, 2, 0.5, sleeps.append) == (None, 2, "TimeoutError: gone") and sleeps == [0.5]
    with pytest.raises(TimeoutError, match="gone"):
        retry(dead, 2, 0.0, sleeps.append)
    assert retry(lambda: 4) == 4


class StubVoices:
    """Voices that hand back the scripted model, or a fixed 'LLM' for participants."""

    def __init__(self) -> None:
        self.llm = ScriptedChatModel(policy=Counter(), role="member")

    def speaker(self, role, kind, seed, scripted, persona=None, name=None):
        return scripted() if scripted is not None else self.llm


def test_a_cast_request_applies_each_rate_to_its_own_kind_of_speaker():
    voices = StubVoices()
    scripted = ScriptedChatModel(policy=Counter(), role="moderator")
    plain = CastRequest({}, 5, voices=voices)  # type: ignore[arg-type]
    assert plain.system("moderator", lambda: scripted) is scripted
    assert plain.participant("member", "You are M1.", "m1") is voices.llm
    assert plain.scripted_participant("m1", scripted) is scripted

    both = CastRequest({}, 5, FaultRates(participant=0.2, role=0.3), voices=voices)  # type: ignore[arg-type]
    system, llm, own = (
        both.system("moderator", lambda: scripted),
        both.participant("member", "You are M1.", "m1"),
        both.scripted_participant("m1", scripted),
    )
    assert (system.kind, system.rate, system.speaker, system.inner) == (SYSTEM, 0.3, "moderator", scripted)
    assert (llm.kind, llm.rate, llm.speaker, llm.inner) == (PARTICIPANT, 0.2, "m1", voices.llm)
    assert (own.kind, own.rate, own.inner) == (PARTICIPANT, 0.2, scripted)
    # a speaker draws the same faults whether a script or an LLM plays it
    assert [llm.draws.random() for _ in range(5)] == [own.draws.random() for _ in range(5)]

    only_roles = CastRequest({}, 5, FaultRates(role=0.3), voices=voices)  # type: ignore[arg-type]
    assert only_roles.participant("member", "You are M1.", "m1") is voices.llm


@pytest.mark.parametrize(
    ("key", "value", "valid"),
    [
        ("failure_rate", 1, "[0, 1)"),
        ("role_failure_rate", -0.1, "[0, 1)"),
        ("crash_rate", 1.5, "[0, 1]"),
        ("failure_rate", True, "[0, 1)"),
        ("crash_rate", "often", "[0, 1]"),
    ],
)
def test_fault_rates_are_range_checked_once_naming_the_key(key, value, valid):
    with pytest.raises(
        ConfigError,
        match=rf"^participants\.{key}={value!r} is out of range; valid range: "
        rf"{re.escape(valid)}$",
    ):
        FaultRates.from_config({key: value})


def test_fault_rates_read_every_key_and_default_to_none_failing():
    rates = FaultRates.from_config({"failure_rate": 0.2, "role_failure_rate": 0, "crash_rate": 1})
    assert rates == FaultRates(participant=0.2, role=0.0, crash=1.0) and FaultRates.from_config({}) == FaultRates()
