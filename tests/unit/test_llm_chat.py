"""The LLM chat model over a fake backend: cache, retries with backoff, structured output, persona, accounting."""

from __future__ import annotations

import json
import random

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from dialectica.sim.authoring.structured import ask, read_json, response_format
from dialectica.sim.engine.meter import EpisodeMeter
from dialectica.sim.llm.backends import Reply, Request
from dialectica.sim.llm.cache import CallCache
from dialectica.sim.llm.chat import LLMChatModel
from dialectica.sim.llm.settings import LLMSettings

SCHEMA = {"type": "object", "properties": {"vote": {"enum": ["yes", "no"]}}, "required": ["vote"]}


class FakeBackend:
    """Replies from a script of texts or exceptions, and records every request."""

    identity = {"backend": "fake"}

    def __init__(self, script):
        self.script = list(script)
        self.requests: list[Request] = []

    def complete(self, request: Request) -> Reply:
        self.requests.append(request)
        item = self.script.pop(0) if self.script else f"reply to seed {request.seed}"
        if isinstance(item, Exception):
            raise item
        return Reply(text=item, prompt_tokens=10, completion_tokens=len(item.split()), seconds=0.25)


def _model(backend, cache=None, sleeps=None, **settings):
    base = {"backend": "llamacpp", "retries": 2, "backoff_s": 0.5} | settings
    return LLMChatModel(
        backend=backend,
        settings=LLMSettings(**base),
        role="expert",
        seed=100,
        call_cache=cache,
        sleep=(sleeps.append if sleeps is not None else lambda s: None),
        metadata={"dialectica_role": "expert"},
        persona="You are Ada.",
    )


def _messages(text="Why?"):
    return [SystemMessage("You are on a panel."), HumanMessage(text)]


def test_persona_opens_the_system_prompt():
    backend = FakeBackend(["fine"])
    _model(backend).invoke(_messages())
    assert backend.requests[0].messages == (("system", "You are Ada.\n\nYou are on a panel."), ("user", "Why?"))


def test_errors_retry_with_exponential_backoff_and_the_next_seed():
    backend, sleeps = FakeBackend([TimeoutError("slow"), ConnectionError("down"), "at last"]), []
    reply = _model(backend, sleeps=sleeps).invoke(_messages())
    assert reply.content == "at last"
    assert sleeps == [0.5, 1.0]
    assert [r.seed for r in backend.requests] == [100, 101, 102]
    assert reply.response_metadata["dialectica"]["attempts"] == 3


def test_when_every_attempt_fails_the_last_error_is_raised():
    backend = FakeBackend([TimeoutError("1"), TimeoutError("2"), TimeoutError("3")])
    with pytest.raises(TimeoutError, match="3"):
        _model(backend).invoke(_messages())


def test_an_empty_reply_is_retried_and_flagged_when_it_stays_empty():
    reply = _model(FakeBackend(["", "  ", "\n"])).invoke(_messages())
    assert reply.content.strip() == ""
    assert reply.response_metadata["dialectica"]["empty"] is True
    assert _model(FakeBackend(["", "words"])).invoke(_messages()).content == "words"


def test_structured_reply_is_retried_until_it_parses_then_recorded_as_a_parse_failure():
    good = _model(FakeBackend(['{"vote": "maybe"}', '{"vote": "yes"}'])).invoke(
        _messages(), response_format={"type": "json_object", "schema": SCHEMA}
    )
    assert read_json(good.content, SCHEMA) == {"vote": "yes"}
    assert good.response_metadata["dialectica"]["parse_failed"] is False
    bad = _model(FakeBackend(["no json", "{", '{"vote": 3}'])).invoke(
        _messages(), response_format={"type": "json_object", "schema": SCHEMA}
    )
    assert bad.content == '{"vote": 3}'
    assert bad.response_metadata["dialectica"]["parse_failed"] is True


def test_structured_request_carries_the_schema_and_a_shape_instruction():
    backend = FakeBackend(['{"vote": "no"}'])
    assert ask(_model(backend, json_max_tokens=77), _messages(), SCHEMA) == '{"vote": "no"}'
    request = backend.requests[0]
    assert request.schema == SCHEMA and request.max_tokens == 77
    assert request.messages[-1][1].endswith('shaped like: {"vote": "yes|no"}')


def test_a_callers_token_cap_overrides_the_settings_cap_for_that_call_only():
    backend = FakeBackend(['{"vote": "no"}', '{"vote": "yes"}'])
    model = _model(backend, json_max_tokens=77)
    model.invoke(_messages(), response_format=response_format(SCHEMA), max_tokens=500)
    ask(model, _messages(), SCHEMA)
    assert [r.max_tokens for r in backend.requests] == [500, 77]


def test_cache_answers_identical_calls_and_only_those(tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite")
    backend = FakeBackend([])
    first = _model(backend, cache).invoke(_messages())
    again = _model(backend, cache).invoke(_messages())
    assert len(backend.requests) == 1 and again.content == first.content
    assert again.response_metadata["dialectica"]["cache_hit"] is True
    assert again.usage_metadata == first.usage_metadata  # the tokens the call represents, hit or not
    _model(backend, cache).invoke(_messages("Why not?"))
    _model(backend, cache, temperature=0.1).invoke(_messages())
    _model(backend, cache, timeout_s=5.0).invoke(_messages())  # the timeout does not change a reply
    assert len(backend.requests) == 3


def test_cache_persists_across_processes_by_file(tmp_path):
    path = tmp_path / "calls.sqlite"
    CallCache(path).put("k", {"text": "saved"})
    assert CallCache(path).get("k") == {"text": "saved"}
    assert CallCache(path).get("other") is None


def test_meter_accounts_calls_tokens_cache_hits_and_parse_failures_by_role(tmp_path):
    cache, meter = CallCache(tmp_path / "c.sqlite"), EpisodeMeter()
    config = {"callbacks": [meter]}
    backend = FakeBackend(["a b c", "x", "y", "z"])
    _model(backend, cache).invoke(_messages(), config=config)
    _model(backend, cache).invoke(_messages(), config=config)  # the same first call again: a hit
    _model(backend, cache).invoke(
        _messages("json?"), config=config, response_format={"type": "json_object", "schema": SCHEMA}
    )
    usage, runtime = meter.summary(), meter.runtime()
    assert usage["calls_by_role"] == {"expert": 3}
    assert usage["tokens_by_role"]["expert"] == 2 * (10 + 3) + 3 * (10 + 1)  # the JSON call took three attempts
    assert usage["parse_failures"] == 1
    assert runtime["cache_lookups"] == 3 and runtime["cache_hits"] == 1
    # the model's own seconds: 1 attempt, a hit (none), 3 attempts; not the calls' wall time
    assert runtime["llm_seconds_by_role"] == {"expert": pytest.approx(4 * 0.25)}
    # what the model read and wrote, and what its prefix cache served, only for the calls it ran (not the hit)
    assert runtime["model_tokens_by_role"] == {"expert": [10 + 3 * 10, 3 + 3 * 1, 0]}


def test_prefix_cached_prompt_tokens_are_counted_per_role_apart_from_the_record_usage():
    class Cached(FakeBackend):
        def complete(self, request: Request) -> Reply:
            reply = super().complete(request)
            return Reply(reply.text, reply.prompt_tokens, reply.completion_tokens, reply.seconds, cached_tokens=7)

    meter = EpisodeMeter()
    _model(Cached(["a", "b"])).invoke(_messages(), config={"callbacks": [meter]})
    _model(Cached(["c"])).invoke(_messages("again?"), config={"callbacks": [meter]})
    assert meter.runtime()["model_tokens_by_role"] == {"expert": [20, 2, 14]}
    assert "model_tokens_by_role" not in meter.summary()  # the prefix cache depends on call order: not a result


def test_settings_pick_a_model_per_role():
    s = LLMSettings.from_dict({"backend": "llamacpp", "roles": {"moderator": "scripted", "expert": {"temperature": 0.2}}})
    assert s.for_role("moderator", "system") is None
    assert s.for_role("chair", "system").temperature == s.temperature
    assert s.for_role("expert", "participant").temperature == 0.2
    assert LLMSettings.from_dict({"backend": "llamacpp", "system_roles": "scripted"}).for_role("chair", "system") is None


@pytest.mark.parametrize(
    "values, key",
    [
        ({"backend": "gpt"}, "llm.backend"),
        ({"backend": "llamacpp", "temperature": 3}, "llm.temperature"),
        ({"backend": "llamacpp", "system_roles": "some"}, "llm.system_roles"),
        ({"backend": "llamacpp", "colour": 1}, "llm.colour"),
    ],
)
def test_bad_settings_name_the_key(values, key):
    from dialectica.sim.authoring.params import ConfigError

    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        LLMSettings.from_dict(values)


def test_surrogate_participants_need_an_llm():
    from dialectica.sim.authoring.params import ConfigError

    with pytest.raises(ConfigError, match="participants=surrogate needs an LLM"):
        LLMSettings().for_role("expert", "participant")
    with pytest.raises(ConfigError, match=r"llm\.roles\.expert\.max_tokens"):
        LLMSettings(backend="llamacpp", roles={"expert": {"max_tokens": 0}}).for_role("expert", "participant")


def test_shape_instruction_round_trips_random_schemas():
    from dialectica.sim.authoring.structured import shape

    rng = random.Random(0)
    for _ in range(20):
        keys = rng.sample(["a", "b", "c", "d"], rng.randint(1, 4))
        schema = {"type": "object", "properties": {k: {"enum": [k + "1", k + "2"]} for k in keys}}
        assert json.loads(json.dumps(shape(schema))) == {k: f"{k}1|{k}2" for k in keys}


def test_the_shape_tells_a_model_a_strings_length_cap_which_the_grammar_would_cut_it_at():
    from dialectica.sim.authoring.structured import shape

    capped = {"type": "string", "maxLength": 100, "description": "one sentence on why"}
    assert shape({"type": "object", "properties": {"why": capped}}) == {
        "why": "<one sentence on why, at most 100 characters>"
    }
    assert shape({"type": "string", "description": "why"}) == "<why>"


def test_each_call_samples_with_its_own_seed_so_a_repeated_question_gets_a_fresh_reply(tmp_path):
    backend = FakeBackend([])
    model = _model(backend, CallCache(tmp_path / "c.sqlite"))
    first, second = model.invoke(_messages()), model.invoke(_messages())
    assert first.content != second.content and second.response_metadata["dialectica"]["cache_hit"] is False
    replay = _model(backend, CallCache(tmp_path / "c.sqlite"))  # the same sequence of calls in a new episode run
    assert [replay.invoke(_messages()).content for _ in range(2)] == [first.content, second.content]
    assert len(backend.requests) == 2


def test_structured_output_for_langchain_consumers_such_as_openevals():
    from openevals.llm import create_llm_as_judge

    backend = FakeBackend(["not json", '{"reasoning": "It answered. Thus, the score should be: true.", "score": true}'])
    judge = create_llm_as_judge(prompt="Did it answer? {outputs}", judge=_model(backend), feedback_key="answered")
    result = judge(outputs="The refund is issued.")
    assert result["key"] == "answered" and result["score"] is True and "Thus" in result["comment"]
    request = backend.requests[-1]
    assert request.schema is not None and request.schema["required"] == ["reasoning", "score"]  # the grammar's shape
    assert "title" not in request.schema and len(backend.requests) == 2  # the reply that was not JSON was retried
    with pytest.raises(ValueError, match="does not fit the schema"):
        _model(FakeBackend(["no"] * 3)).with_structured_output(SCHEMA).invoke("vote?")
