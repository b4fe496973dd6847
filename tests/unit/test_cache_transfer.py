"""``dialectica cache export/import``: a model job's calls carried to another machine's cache, and back."""

from __future__ import annotations

import gzip

import pytest

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.cache import main
from dialectica.sim.llm.cache import CallCache
from tests.unit.test_llm_chat import FakeBackend, _messages, _model


def test_calls_exported_and_imported_answer_the_same_calls_without_the_model(tmp_path, capsys):
    source = CallCache(tmp_path / "a.sqlite")
    first = _model(FakeBackend(["the answer"]), source).invoke(_messages())
    assert main(["export", str(tmp_path / "calls.jsonl.gz"), f"cache={tmp_path / 'a.sqlite'}"]) == 0
    assert not list(tmp_path.glob("*.partial"))

    target = tmp_path / "b.sqlite"
    CallCache(target).put("theirs", {"text": "kept"})
    assert main(["import", str(tmp_path / "calls.jsonl.gz"), f"cache={target}"]) == 0
    assert "1 calls, 1 new" in capsys.readouterr().out
    silent = FakeBackend([])  # a model that is asked anything fails the test below
    again = _model(silent, CallCache(target)).invoke(_messages())
    assert silent.requests == [] and again.content == first.content == "the answer"
    assert again.response_metadata["dialectica"]["cache_hit"] is True
    assert CallCache(target).get("theirs") == {"text": "kept"}

    assert main(["import", str(tmp_path / "calls.jsonl.gz"), f"cache={target}"]) == 0  # once only
    assert "1 calls, 0 new" in capsys.readouterr().out


def test_an_export_of_the_same_calls_is_the_same_bytes(tmp_path):
    cache = CallCache(tmp_path / "c.sqlite")
    for key in ("b", "a", "c"):
        cache.put(key, {"text": key})
    main(["export", str(tmp_path / "one.jsonl.gz"), f"cache={tmp_path / 'c.sqlite'}"])
    main(["export", str(tmp_path / "two.jsonl.gz"), f"cache={tmp_path / 'c.sqlite'}"])
    assert (tmp_path / "one.jsonl.gz").read_bytes() == (tmp_path / "two.jsonl.gz").read_bytes()
    lines = gzip.decompress((tmp_path / "one.jsonl.gz").read_bytes()).decode().splitlines()
    assert [line[:10] for line in lines] == ['{"key": "a', '{"key": "b', '{"key": "c']


@pytest.mark.parametrize(
    "content, expected",
    [
        (gzip.compress(b'{"key": "a", "value": {}}\n{"value": {}}\n', mtime=0), "line 2 is not a cached call"),
        (b"plain text", "not a gzipped file of calls"),
    ],
    ids=["gzipped-not-calls", "not-gzipped"],  # the same ids in every xdist worker, whatever second it collects in
)
def test_a_file_that_is_not_calls_adds_nothing_and_says_which_line(tmp_path, capsys, content, expected):
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(content)
    cache = tmp_path / "c.sqlite"
    with pytest.raises(ConfigError) as raised:
        main(["import", str(bad), f"cache={cache}"])
    assert expected in str(raised.value) and str(bad) in str(raised.value)
    assert list(CallCache(cache).rows()) == []


def test_export_needs_an_existing_cache(tmp_path):
    with pytest.raises(ConfigError, match="no call cache there"):
        main(["export", str(tmp_path / "x.jsonl.gz"), f"cache={tmp_path / 'none.sqlite'}"])
    assert not (tmp_path / "x.jsonl.gz").exists()
