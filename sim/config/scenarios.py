"""Scenarios (personas, claims, evidence) are data: ``scenarios/*.yaml`` in a graph's data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.authoring.spec import GraphSpec

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml parses about 8 times faster


MAX_BYTES = 1 << 20  # a data file past 1 MiB is refused unread: the largest shipped one is about 70 KiB
MAX_NODES = 1_000_000  # values a parsed file may expand to, aliases followed: a "YAML bomb" stops here


class _Unreadable(ValueError):
    """Why a data file cannot be used, without its path (the caller says which file)."""


def _expanded_size(data: Any, limit: int) -> int:
    """How many values ``data`` holds with every alias expanded, counting no further than ``limit``."""
    seen, stack = 0, [data]
    while stack and seen <= limit:
        value = stack.pop()
        seen += 1
        if isinstance(value, dict):
            stack.extend(value.values())
            stack.extend(value.keys())
        elif isinstance(value, list):
            stack.extend(value)
    return seen


def _parse(path: Path) -> Any:
    """The parsed file; raises _Unreadable naming the problem (size, encoding, YAML syntax, alias bomb)."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise _Unreadable(f"{size:,} bytes, over the {MAX_BYTES >> 20} MiB cap on data files ({MAX_BYTES:,} bytes)")
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Unreadable(f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from exc
    except OSError as exc:
        raise _Unreadable(f"cannot be read ({exc.strerror or exc})") from exc
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader: no Python tags
    except yaml.YAMLError as exc:
        where = str(exc).replace(' in "<unicode string>",', "")  # the file is named by the caller
        raise _Unreadable(f"not valid YAML: {' '.join(where.split())}") from exc
    if _expanded_size(data, MAX_NODES) > MAX_NODES:
        raise _Unreadable(f"its aliases expand past {MAX_NODES:,} values (a YAML bomb?)")
    return data


def read_yaml(path: Path) -> Any:
    """A YAML data file, parsed safely (no Python tags, at most ``MAX_BYTES``, aliases expanding to at most
    ``MAX_NODES`` values); None for an empty file.

    Raises:
        ConfigError: naming the file and what is wrong with it.
    """
    try:
        return _parse(path)
    except _Unreadable as exc:
        raise ConfigError(f"malformed data file {path}: {exc}; fix or replace it") from None


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
        if item["name"] in out:
            raise ConfigError(f"{where}: a second scenario named {item['name']!r}; names must be unique")
        out[item["name"]] = item
    return out


def load_scenario(path: Path, spec: GraphSpec) -> dict[str, Any]:
    """Reads and validates one scenario file; any problem is a ConfigError naming the file and what to do."""
    hint = f"fix the file, or move it out of {path.parent}"
    try:
        data = _parse(path)
    except _Unreadable as exc:
        raise ConfigError(f"malformed scenario file {path}: {exc}; {hint}") from None
    if data is None:
        raise ConfigError(f"malformed scenario file {path}: the file is empty; {hint}")
    if not isinstance(data, dict):
        raise ConfigError(
            f"malformed scenario file {path}: expected a mapping at the top level, got {type(data).__name__}; {hint}"
        )
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
            raise ConfigError(f"unknown scenario={name!r} for graph {spec.name}; valid choices: all, {', '.join(found)}")
    return names
