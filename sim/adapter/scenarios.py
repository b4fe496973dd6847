"""The keys a scenario of a graph evaluated as it is may hold, checked before anything runs.

Any other key is the researcher's own: it reaches users and judges untouched (``scenario["order_id"]``).
"""

from __future__ import annotations

import difflib
import logging
from pathlib import Path
from typing import Any

from dialectica.metrics.trajectory import MODES
from dialectica.sim.authoring.params import ConfigError

_log = logging.getLogger(__name__)
TEXT = ("persona", "instructions", "rubric", "stop")
LINES = ("turns", "opening", "expected_path")
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
    "expected_tools": "the tool calls the graph should make (a list of names or {name, args} mappings)",
    "expected_path": "the nodes the graph should run, in order (a list of node names)",
    "trajectory_mode": f"how calls and path are matched (one of: {', '.join(MODES)}; default strict)",
    "reference_outputs": "what an evaluator compares the outputs with (any value but null)",
    "expectations": "an MLflow scorer's expectations (a mapping)",
}


def _reserved(key: str, expected: str, value: Any) -> ConfigError:
    return ConfigError(
        f"key {key!r} is reserved by the harness ({RESERVED[key]}); got {value!r}"[:240]
        + f"; expected {expected}. The reserved keys: {', '.join(RESERVED)}; name a key of your own otherwise"
    )


def prepare_scenario(scenario: dict[str, Any], root: Path) -> dict[str, Any]:
    """Checks ``name``, the user's keys (``turns``, ``opening``: lists of strings; ``persona``, ``instructions``,
    ``stop``: strings), the judge's ``rubric``, the graph's ``input`` (a mapping), and what the graph should do
    (``expected_tools``, ``expected_path``, ``trajectory_mode``) and what evaluators compare it with
    (``reference_outputs``: not null; ``expectations``: a mapping).

    Raises:
        ConfigError: naming the key and the expected type.
    """
    if not isinstance(scenario.get("name"), str) or not scenario["name"]:
        raise ConfigError("missing or malformed key 'name' (expected a non-empty string)")
    for key in map(str, scenario):
        near = None if key in RESERVED else difflib.get_close_matches(key, list(RESERVED), n=1, cutoff=0.8)
        if near and near[0] not in scenario:  # a typo of a reserved key is read as the researcher's own: said
            _log.warning(
                "scenario %r: key %r is read as your own, not as the reserved %r (%s), a letter or two off it: "
                "rename it if you meant that",
                scenario["name"],
                key,
                near[0],
                RESERVED[near[0]],
            )
    for key in TEXT:
        if key in scenario and not isinstance(scenario[key], str):
            raise _reserved(key, "a string", scenario[key])
    for key in LINES:
        value = scenario.get(key)
        if key in scenario and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise _reserved(key, "a list of strings", value)
    if "input" in scenario and not isinstance(scenario["input"], dict):
        raise _reserved("input", "a mapping", scenario["input"])
    if scenario.get("trajectory_mode", "strict") not in MODES:
        raise _reserved("trajectory_mode", f"one of {', '.join(MODES)}", scenario["trajectory_mode"])
    if "reference_outputs" in scenario and scenario["reference_outputs"] is None:
        raise _reserved("reference_outputs", "any value but null (leave the key out for none)", None)
    if "expectations" in scenario and not isinstance(scenario["expectations"], dict):
        raise _reserved("expectations", "a mapping", scenario["expectations"])
    tools = scenario.get("expected_tools")
    if "expected_tools" in scenario and not (isinstance(tools, list) and all(_is_call(t) for t in tools)):
        raise _reserved("expected_tools", "a list of tool names or {name: ..., args: {...}} mappings", tools)
    return scenario


def _is_call(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value)
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and set(value) <= {"name", "args"}
        and isinstance(value.get("args", {}), dict)
    )
