"""A config's ``overrides`` are a command that rebuilds it: values set from Python and fields replaced after
loading are written back in Hydra's grammar (``typed.as_override``), secrets redacted."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser

from dialectica.sim.config.typed import as_override, with_overrides

VALUES = [
    None,
    True,
    3,
    0.5,
    1e-9,
    "plain",
    "a b",
    "it's",
    "x\\'y",
    "C:\\dir\\",
    "true",
    "1.5",
    "",
    "a,b",
    "${x}",
    "héllo",
    "a=b",
    [1, "a b", None],
    {"backend": "openai", "model": "gpt-4o", "temperature": 0.2},
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_an_override_reads_back_as_the_value_it_was_made_of(value):
    parsed = OverridesParser.create().parse_override(as_override("key", value))
    assert parsed.key_or_group == "key" and parsed.value() == value


def test_a_path_is_written_as_its_text():
    parsed = OverridesParser.create().parse_override(as_override("graph.scenarios", Path("/tmp/a b/c.yaml")))
    assert parsed.value() == "/tmp/a b/c.yaml"


def test_a_secret_never_enters_the_command():
    assert "sk-1" not in as_override("llm", {"backend": "openai", "api_key": "sk-1"})
    assert "sk-1" not in as_override("llm.api_key", "sk-1")


def test_a_later_override_replaces_an_earlier_one_of_its_key():
    given = ("graph=interview", "seed=0", "+graph.x=1")
    assert with_overrides(given, ["seed=3", "graph.x=2"]) == ("graph=interview", "seed=3", "graph.x=2")


def test_a_mapping_merged_into_a_config_group_keeps_the_groups_choice():
    assert with_overrides(["llm=llamacpp"], ["++llm={temperature:0.2}"]) == ("llm=llamacpp", "++llm={temperature:0.2}")
    assert with_overrides(["graph=x"], ["graph=y"]) == ("graph=y",)


def test_a_mapping_merged_into_a_group_is_no_choice_of_it():
    from dialectica.sim.cli.run import check_group_overrides

    check_group_overrides(["llm=llamacpp", "++llm={temperature:0.3}"])  # evaluate(llm={...})'s, read back by replay
    with pytest.raises(SystemExit):
        check_group_overrides(["llm=llamcpp"])
