"""Scenarios (personas, claims, evidence) are data: ``scenarios/*.yaml`` in a graph's data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dialectica.sim.authoring.data import Unreadable, parse_yaml, read_yaml
from dialectica.sim.authoring.params import ConfigError, did_you_mean
from dialectica.sim.authoring.spec import GraphSpec


def scenario_paths(data: Path) -> dict[str, Path]:
    """The scenario files of a graph's data folder, by name: ``scenarios/*.yaml`` under it, else its own ``*.yaml``."""
    folder = data / "scenarios" if (data / "scenarios").is_dir() else data
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))} if data.is_dir() else {}


def _file_scenarios(path: Path, spec: GraphSpec) -> dict[str, dict[str, Any]]:
    """The scenarios of one YAML file holding a list of them (or one), by name."""
    data = read_yaml(path)
    items = data if isinstance(data, list) else [data]
    out: dict[str, dict[str, Any]] = {}
    for i, item in enumerate(items):
        where = f"malformed scenario file {path}, item {i + 1}"
        if not isinstance(item, dict):
            raise ConfigError(f"{where}: expected a mapping with at least 'name', got {type(item).__name__}")
        try:
            item = spec.prepare_scenario(item, path.parent)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from exc
        if not isinstance(item.get("name"), str):
            raise ConfigError(f"{where}: missing or malformed key 'name' (expected a string)")
        if item["name"] in out:
            raise ConfigError(f"{where}: a second scenario named {item['name']!r}; names must be unique")
        out[item["name"]] = item
    return out


def load_scenario(path: Path, spec: GraphSpec) -> dict[str, Any]:
    """Reads and validates one scenario file; any problem is a ConfigError naming the file and what to do."""
    hint = f"fix the file, or move it out of {path.parent}"
    try:
        data = parse_yaml(path)
    except Unreadable as exc:
        raise ConfigError(f"malformed scenario file {path}: {exc}; {hint}") from None
    if data is None:
        raise ConfigError(f"malformed scenario file {path}: the file is empty; {hint}")
    if not isinstance(data, dict):
        raise ConfigError(
            f"malformed scenario file {path}: expected a mapping at the top level, got {type(data).__name__}; {hint}"
        )
    if not isinstance(data.get("name"), str):
        given = f"name {data['name']!r} is not a string" if "name" in data else "it has no 'name'"
        raise ConfigError(f"malformed scenario file {path}: {given} (write name: '{path.stem}', its file's name); {hint}")
    try:
        data = spec.prepare_scenario(data, path.parents[1])
    except ConfigError as exc:
        raise ConfigError(f"malformed scenario file {path}: {exc}; {hint}") from exc
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:  # a value of the wrong shape
        raise ConfigError(
            f"malformed scenario file {path}: a value has the wrong shape ({type(exc).__name__}: {exc}); {hint}"
        ) from exc
    try:
        check_personas(data, spec)
    except ConfigError as exc:
        raise ConfigError(f"malformed scenario file {path}: {exc}; {hint}") from None
    if data["name"] != path.stem:
        raise ConfigError(
            f"malformed scenario file {path}: name {data['name']!r} differs from the file name; rename one of them"
        )
    return data


def check_personas(scenario: dict[str, Any], spec: GraphSpec) -> None:
    """The numeric persona keys a graph declares (its calibration's knobs) hold numbers: ``stubbornness: "very"``
    would otherwise break an episode minutes in, or pass silently.

    Raises:
        ConfigError: naming the persona, the key and the expected type.
    """
    if spec.calibration is None:
        return
    for persona, values in spec.calibration.personas(scenario):
        for knob in spec.calibration.knobs:
            value = values.get(knob.name)
            if knob.name in values and (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or value != value
                or (knob.integer and value != int(value))
            ):
                kind = "a whole number" if knob.integer else "a number"
                raise ConfigError(
                    f"persona {persona!r}: key {knob.name!r} must be {kind} ({knob.doc or 'a persona knob'}"
                    f"; the calibrated range is {knob.low}..{knob.high}), got {value!r}"
                )


def load_scenarios(data: Path, spec: GraphSpec, select: str) -> list[dict[str, Any]]:
    """All scenarios in ``data`` (``select='all'``) or the comma-separated names in ``select``; ``data`` is a
    folder of scenario files (or holding ``scenarios/``), or one YAML file with a list of scenarios."""
    if data.is_file():
        found = _file_scenarios(data, spec)
        return [found[name] for name in _selected(select, list(found), spec)]
    paths = scenario_paths(data)
    if not paths:
        raise ConfigError(
            f"no scenarios for graph {spec.name} under {data / 'scenarios'}; add <name>.yaml files "
            "there, or set datasets_dir to a folder that has them (null: the project's datasets)"
        )
    return [load_scenario(paths[name], spec) for name in _selected(select, list(paths), spec)]


def _selected(select: str, found: list[str], spec: GraphSpec) -> list[str]:
    names = found if select == "all" else [s.strip() for s in select.split(",")]
    if not names or not all(names):
        raise ConfigError(
            f"scenario={select!r} names no scenario for graph {spec.name}; valid choices: all, {', '.join(found)}"
        )
    for name in names:
        if name not in found:
            raise ConfigError(
                f"unknown scenario={name!r} for graph {spec.name}{did_you_mean(name, found, 'scenario=')}; "
                f"valid choices: all, {', '.join(found)}"
            )
    return names
