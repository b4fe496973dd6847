"""Config copies that reach disk (config.json, MLflow params and tags, fingerprint.json) hold no secret; secrets
are scrubbed by value (``sim/secrets.py``) from text, records, log records and a backend's replies and errors."""

from __future__ import annotations

import base64
import io
import json
import logging
import traceback

import pytest

from dialectica.sim.config.typed import redact, redact_overrides, scrub_url, secrets
from dialectica.sim.llm.backends import Reply, Request, Scrubbed
from dialectica.sim.records import EpisodeRecord, to_line


def test_url_credentials_are_scrubbed_wherever_they_sit():
    assert scrub_url("http://alice:s3cret@host:8000/v1") == "http://***@host:8000/v1"
    assert scrub_url("https://token@api.example/v1?q=a@b") == "https://***@api.example/v1?q=a@b"
    assert scrub_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    tree = {
        "llm": {"base_url": "http://alice:s3cret@host/v1", "api_key": "sk-1", "urls": ["sqlite://u:p@x/db"]},
        "episodes": 3,
    }
    clean = redact(tree)
    assert "s3cret" not in repr(clean) and "sk-1" not in repr(clean) and "u:p@" not in repr(clean)
    assert clean["episodes"] == 3 and clean["llm"]["base_url"] == "http://***@host/v1"
    assert tree["llm"]["base_url"] == "http://alice:s3cret@host/v1"  # the run itself keeps the real value
    assert redact_overrides(["llm.base_url=http://alice:s3cret@host/v1", "+tracking.api_key=sk-2", "seed=1"]) == [
        "llm.base_url=http://***@host/v1",
        "+tracking.api_key=***REDACTED***",
        "seed=1",
    ]


@pytest.fixture
def registry():
    """An empty secrets registry and the logging record factory as it was, before and after."""
    factory = logging.getLogRecordFactory()
    secrets.clear()
    yield secrets
    secrets.clear()
    logging.setLogRecordFactory(factory)


def test_scrub_replaces_registered_values_and_url_credentials(registry):
    registry.register("sk-live-123456")
    registry.register("short")  # under MIN_LENGTH: ordinary words stay
    registry.register(None)
    text = "key sk-live-123456 at http://bob:hunter2@host/v1, short and sweet"
    assert registry.scrub(text) == "key *** at http://***@host/v1, short and sweet"
    tree = {"a": ["sk-live-123456", 3, None], "sk-live-123456": ("x", "http://t0k@h")}
    assert registry.scrub_tree(tree) == {"a": ["***", 3, None], "***": ("x", "http://***@h")}


def test_collect_finds_secrets_by_name_env_var_and_url():
    environ = {
        "OPENAI_API_KEY": "sk-env-abcdef",
        "HF_TOKEN": "hf_tokenvalue",
        "MY_KEY_VAR": "sk-named-by-config",
        "MAX_TOKENS": "1000000",
        "TOKENIZERS_PARALLELISM": "disabled",
        "HOME": "/home/someone",
    }
    config = {
        "llm": {
            "api_key_env": "MY_KEY_VAR",
            "base_url": "http://al:pa%24%24word@host/v1",
            "max_tokens": 4096,
            "roles": {"judge": {"api_key": "sk-role-9876543"}},
        },
        "tracking": {"uri": "https://svc-token-xyz@mlflow.example"},
        "credentials": {"user": "alice-the-user"},
    }
    secrets.clear()
    try:
        secrets.collect(config, environ)
        clean = secrets.scrub(
            " ".join(
                [
                    "sk-env-abcdef",
                    "hf_tokenvalue",
                    "sk-named-by-config",
                    "sk-role-9876543",
                    "pa$$word",
                    "pa%24%24word",
                    base64.b64encode(b"al:pa$$word").decode(),
                    "svc-token-xyz",
                    "alice-the-user",
                ]
            )
        )
        assert set(clean.split()) == {"***"}
        # not secrets: numbers under *_tokens, variables of other names, the variable's name itself
        plain = "1000000 4096 disabled /home/someone MY_KEY_VAR"
        assert secrets.scrub(plain) == plain
    finally:
        secrets.clear()


def test_redact_leaves_token_counts_alone():
    clean = redact({"llm": {"max_tokens": 96, "json_max_tokens": 320, "api_token": "x", "api_key_env": "K"}})
    assert clean["llm"]["max_tokens"] == 96 and clean["llm"]["json_max_tokens"] == 320
    assert clean["llm"]["api_token"] == clean["llm"]["api_key_env"] == "***REDACTED***"


def test_log_records_are_scrubbed_whatever_handler_writes_them(registry):
    registry.register("sk-log-secret-1")
    registry.install_logging()
    registry.install_logging()  # idempotent: one wrapper
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)  # a handler added after install_logging, as Hydra's are
    logger = logging.getLogger("dialectica.test_redact")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("calling %s with %r", "http://u:pw-123@h/v1", {"key": "sk-log-secret-1"})
        try:
            raise RuntimeError("server said: sk-log-secret-1")
        except RuntimeError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    out = stream.getvalue()
    assert "sk-log-secret-1" not in out and "pw-123" not in out
    assert "calling http://***@h/v1 with {'key': '***'}" in out and "RuntimeError: server said: ***" in out


def test_backend_errors_and_replies_are_scrubbed(registry):
    key, url = "sk-echoed-key", "http://u:p4ssw0rd@h"  # named, so the source lines a traceback shows hold neither
    registry.register(key)

    class Echo:
        identity = {"backend": "echo"}

        def __init__(self, fail: bool) -> None:
            self.fail = fail

        def complete(self, request: Request) -> Reply:
            if self.fail:
                try:
                    raise ConnectionError(f"refused {url}")
                except ConnectionError as cause:
                    raise ValueError(f"Error code: 401 - Bearer {key}") from cause
            return Reply(text=f"you sent {key}", prompt_tokens=1, completion_tokens=1)

    request = Request(messages=(("user", "hi"),), seed=0, temperature=0.0, top_p=1.0, max_tokens=8, timeout_s=1.0)
    assert Scrubbed(Echo(False)).complete(request).text == "you sent ***"
    with pytest.raises(ValueError, match=r"Bearer \*\*\*$") as info:
        Scrubbed(Echo(True)).complete(request)
    text = "".join(traceback.format_exception(info.value))
    assert key not in text and "p4ssw0rd" not in text and "http://***@h" in text


def test_records_are_written_scrubbed(registry):
    registry.register("sk-in-a-transcript")
    turn = {"round": 1, "role": "participant", "speaker": "p", "text": "my key is sk-in-a-transcript"}
    record = EpisodeRecord(
        graph="g",
        episode=0,
        seed=1,
        scenario="s",
        participants="scripted",
        termination_reason="error",
        transcript=[turn],
        error="Traceback: 500 - Authorization: Bearer sk-in-a-transcript",
    )
    line = to_line(record)
    assert "sk-in-a-transcript" not in line and json.loads(line)["error"].endswith("Bearer ***")
