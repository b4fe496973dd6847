"""Config copies that reach disk (config.json, MLflow params and tags, fingerprint.json) hold no secret."""

from __future__ import annotations

from dialectica.sim.config import redact, redact_overrides, scrub_url


def test_url_credentials_are_scrubbed_wherever_they_sit():
    assert scrub_url("http://alice:s3cret@host:8000/v1") == "http://***@host:8000/v1"
    assert scrub_url("https://token@api.example/v1?q=a@b") == "https://***@api.example/v1?q=a@b"
    assert scrub_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    tree = {"llm": {"base_url": "http://alice:s3cret@host/v1", "api_key": "sk-1", "urls": ["sqlite://u:p@x/db"]},
            "episodes": 3}
    clean = redact(tree)
    assert "s3cret" not in repr(clean) and "sk-1" not in repr(clean) and "u:p@" not in repr(clean)
    assert clean["episodes"] == 3 and clean["llm"]["base_url"] == "http://***@host/v1"
    assert tree["llm"]["base_url"] == "http://alice:s3cret@host/v1"  # the run itself keeps the real value
    assert redact_overrides(["llm.base_url=http://alice:s3cret@host/v1", "+tracking.api_key=sk-2", "seed=1"]) == [
        "llm.base_url=http://***@host/v1", "+tracking.api_key=***REDACTED***", "seed=1"]
