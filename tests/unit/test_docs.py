"""The README and the documentation site: the README's shape and test command, and the reference that the MkDocs
hook (docs/hooks/reference.py) generates from the code. The site itself is built with ``mkdocs build --strict`` by
the test command; the pages' Python blocks run in tests/integration/test_docs_code.py."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import yaml

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
EXAMPLE_SECTION = "## Evaluate a graph you already have"


@cache
def hook() -> ModuleType:
    """docs/hooks/reference.py, loaded as MkDocs loads a hook."""
    spec = importlib.util.spec_from_file_location("docs_reference_hook", ROOT / "docs" / "hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def first_python_block(text: str, after: str) -> str:
    found = re.search(r"```python\n(.*?)```", text.split(after, 1)[1], re.DOTALL)
    assert found is not None, f"no python block after {after!r}"
    return found.group(1)


def test_the_readme_opens_with_the_two_commands_and_the_second_is_what_ci_runs():
    lines = README.read_text().splitlines()
    assert lines[0] == "# Dialectica"
    assert lines[1] == "" and lines[2] == "```bash" and lines[5] == "```", lines[:6]
    install, test = lines[3], lines[4]
    assert install == "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/dialectica"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert ci[-1] == test, "the README's second command and .ci/run's must be the same"
    assert "pip install -e '.[test]'" in test and test.endswith("&& .venv/bin/mkdocs build --strict")


def test_the_readme_is_short_and_its_example_is_the_getting_started_one():
    text = README.read_text()
    assert len(text.splitlines()) <= 150, f"the README has {len(text.splitlines())} lines; the docs teach, it points"
    example = first_python_block(text, EXAMPLE_SECTION)
    docs = first_python_block((ROOT / "docs" / "getting-started.md").read_text(), EXAMPLE_SECTION)
    assert example == docs
    assert len([line for line in example.splitlines() if line.strip()]) <= 15


def test_the_mkdocs_site_dir_is_ignored_by_git():
    config = (ROOT / "mkdocs.yml").read_text()
    site = re.search(r"^site_dir: (\S+)", config, re.MULTILINE)
    assert site is not None
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert f"{site.group(1).rstrip('/')}/" in ignored


def test_every_scenario_key_the_harness_reads_is_in_the_concepts_table():
    from dialectica.sim.adapter.scenarios import RESERVED

    page = (ROOT / "docs" / "concepts.md").read_text()
    table = page.split("### Reserved keys", 1)[1].split("\n#", 1)[0]
    rows = set(re.findall(r"^\| `(\w+)` \|", table, re.MULTILINE))
    assert set(RESERVED) <= rows, sorted(set(RESERVED) - rows)
    assert {"reference_outputs", "expectations"} <= rows  # read by the evaluator bridge, sim/adapter/ecosystem.py
    ecosystem = (ROOT / "sim" / "adapter" / "ecosystem.py").read_text()
    assert all(f'"{key}"' in ecosystem for key in ("reference_outputs", "expectations"))


def _flat(tree: object, prefix: str = "") -> list[str]:
    if not isinstance(tree, dict) or not tree:
        return [prefix]
    return [key for k, v in tree.items() for key in _flat(v, f"{prefix}.{k}" if prefix else str(k))]


def test_every_config_key_is_in_the_generated_reference():
    from dialectica.sim.config.discovery import builtin_names, load
    from dialectica.sim.config.resources import CONF_DIR
    from dialectica.sim.config.shape import known_keys

    reference = hook().config_reference()
    listed = set(re.findall(r"^\| `([\w.]+)` \|", reference, re.MULTILINE))

    def covered(key: str) -> bool:  # the key, or the mapping that holds it (``graph.strength_weights``)
        parts = key.split(".")
        return any(".".join(parts[:n]) in listed for n in range(1, len(parts) + 1))

    top = yaml.safe_load((CONF_DIR / "config.yaml").read_text())
    wanted = _flat({k: v for k, v in top.items() if k not in ("defaults", "hydra")})
    for group in ("graph", "participants", "llm", "tracking"):
        for path in sorted((CONF_DIR / group).glob("*.yaml")):
            data = yaml.safe_load(path.read_text()) or {}
            wanted += [f"{group}.{k}" for k in _flat({k: v for k, v in data.items() if k != "defaults"})]
    missing = [k for k in wanted if not covered(k)]
    assert not missing, missing
    top_level = set(known_keys()) - {"graph", "participants", "llm", "tracking"}  # what shape.py accepts
    assert not [k for k in top_level if not any(key == k or key.startswith(f"{k}.") for key in listed)]
    for name in builtin_names():  # every threshold and cast option of every built-in graph, typed and ranged
        spec = load(name)
        for f in dataclasses.fields(spec.params):
            assert f"graph.{f.name}" in listed, (name, f.name)
        for f in dataclasses.fields(spec.cast_options):
            assert f"graph.cast.{f.name}" in listed, (name, f.name)
    row = next(line for line in reference.splitlines() if line.startswith("| `episodes` |"))
    assert "`int`" in row and "1..1,000,000" in row, row  # RunConfig's type, shape.py's range
    row = next(line for line in reference.splitlines() if line.startswith("| `llm.temperature` |"))
    assert "[0.0, 2.0]" in row, row  # LLMSettings' bounded range


def test_the_record_reference_lists_and_describes_every_field():
    from dialectica.sim.records import EpisodeRecord

    reference = hook().records_reference()
    rows = dict(re.findall(r"^\| `(\w+)` \| .*? \| .*? \| (.*) \|$", reference, re.MULTILINE))
    for name in EpisodeRecord.model_fields:
        assert name in rows, name
        assert rows[name].strip(), f"{name} has no description: document it in EpisodeRecord's Attributes"
