"""The keys a scenario of a graph evaluated as it is may hold, checked before anything runs.

Any other key is the researcher's own: it reaches users and judges untouched (``scenario["order_id"]``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dialectica.sim.authoring.params import ConfigError

TEXT = ("persona", "instructions", "rubric", "stop")
LINES = ("turns", "opening")
# The keys the harness reads, and what for (README "Evaluate a graph you already have"); every other key is yours.
RESERVED = {
    "name": "the scenario's name (a non-empty string)",
    "turns": "a scripted user's lines, said in order (a list of strings)",
    "opening": "an LLM user's fixed first lines (a list of strings)",
    "persona": "who an LLM user is (a string)",
    "instructions": "what an LLM user wants (a string)",
    "stop": "the phrase an LLM user says when done (a string)",
    "rubric": "what an LLM judge counts as success (a string)",
    "input": "the graph's input state (a mapping)",
}


def _reserved(key: str, expected: str, value: Any) -> ConfigError:
    return ConfigError(
        f"key {key!r} is reserved by the harness ({RESERVED[key]}); got {value!r}"[:240]
        + f"; expected {expected}. The reserved keys: {', '.join(RESERVED)}; name a key of your own otherwise"
    )


def prepare_scenario(scenario: dict[str, Any], root: Path) -> dict[str, Any]:
    """Checks ``name``, the user's keys (``turns``, ``opening``: lists of strings; ``persona``, ``instructions``,
    ``stop``: strings), the judge's ``rubric`` and the graph's ``input`` (a mapping).

    Raises:
        ConfigError: naming the key and the expected type.
    """
    if not isinstance(scenario.get("name"), str) or not scenario["name"]:
        raise ConfigError("missing or malformed key 'name' (expected a non-empty string)")
    for key in TEXT:
        if key in scenario and not isinstance(scenario[key], str):
            raise _reserved(key, "a string", scenario[key])
    for key in LINES:
        value = scenario.get(key)
        if key in scenario and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise _reserved(key, "a list of strings", value)
    if "input" in scenario and not isinstance(scenario["input"], dict):
        raise _reserved("input", "a mapping", scenario["input"])
    return scenario
