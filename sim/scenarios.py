"""Scenarios (personas, claims, evidence) are data: ``scenarios/*.yaml`` in a graph's data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from dialectica.sim.params import ConfigError
from dialectica.sim.spec import GraphSpec

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml parses about 8 times faster


def read_yaml(path: Path) -> Any:
    """A YAML data file, parsed safely (no Python tags); errors are yaml.YAMLError or OSError."""
    return yaml.load(path.read_text(), Loader=_Loader)  # a safe loader: no Python tags


def scenario_paths(data: Path) -> dict[str, Path]:
    """The scenario files of a graph's data folder, by name."""
    return {p.stem: p for p in sorted((data / "scenarios").glob("*.yaml"))}


def load_scenario(path: Path, spec: GraphSpec) -> dict[str, Any]:
    """Reads and validates one scenario file; any problem is a ConfigError naming the file."""
    try:
        data = read_yaml(path)
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"malformed scenario file {path}: {str(exc).splitlines()[0]}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"malformed scenario file {path}: expected a mapping at the top level")
    try:
        data = spec.prepare_scenario(data, path.parents[1])
    except ConfigError as exc:
        raise ConfigError(f"malformed scenario file {path}: {exc}") from exc
    if data["name"] != path.stem:
        raise ConfigError(f"malformed scenario file {path}: name {data['name']!r} differs from the file name")
    return data


def load_scenarios(data: Path, spec: GraphSpec, select: str) -> list[dict[str, Any]]:
    """All scenarios in ``data`` (``select='all'``) or the comma-separated names in ``select``."""
    paths = scenario_paths(data)
    if not paths:
        raise ConfigError(f"no scenarios for graph {spec.name} under {data / 'scenarios'}")
    names = list(paths) if select == "all" else [s.strip() for s in select.split(",")]
    for name in names:
        if name not in paths:
            raise ConfigError(f"unknown scenario={name!r} for graph {spec.name}; valid choices: all, {', '.join(paths)}")
    return [load_scenario(paths[name], spec) for name in names]
