"""The keys a scenario of a graph evaluated as it is may hold, checked before anything runs.

Any other key is the researcher's own: it reaches users and judges untouched (``scenario["order_id"]``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dialectica.sim.authoring.params import ConfigError

TEXT = ("persona", "instructions", "rubric", "stop")
LINES = ("turns", "opening")


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
            raise ConfigError(f"key {key!r} must be a string, got {type(scenario[key]).__name__}")
    for key in LINES:
        value = scenario.get(key)
        if key in scenario and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ConfigError(f"key {key!r} must be a list of strings, got {value!r}"[:300])
    if "input" in scenario and not isinstance(scenario["input"], dict):
        raise ConfigError(f"key 'input' must be a mapping (the graph's input state), got {type(scenario['input']).__name__}")
    return scenario
