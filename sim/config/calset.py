"""A calibrated set: fitted persona values and their provenance, ``datasets/<graph>/calibrated.yaml``.

``shared`` values apply to every persona of the graph, ``personas.<id>`` values (fitted where a persona had
enough reference episodes) override them for one persona. ``participants=calibrated`` plays the scripted
cast with the scenarios' personas so set (read here; ``dialectica calibrate`` writes it:
``dialectica.sim.analysis.calibration.job.write_set``).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from dialectica.sim.authoring.calibration import Calibration
from dialectica.sim.authoring.params import ConfigError, closest

FILE = "calibrated.yaml"


@dataclass(frozen=True)
class CalibratedSet:
    graph: str
    shared: dict[str, float]
    personas: dict[str, dict[str, float]] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    fit: dict[str, Any] = field(default_factory=dict)

    def values_for(self, persona: str) -> dict[str, float]:
        return {**self.shared, **self.personas.get(persona, {})}

    def apply(self, scenario: dict[str, Any], calibration: Calibration) -> dict[str, Any]:
        """A copy of the prepared ``scenario`` whose personas carry the calibrated values."""
        out = copy.deepcopy(scenario)
        for persona, mapping in calibration.personas(out):
            mapping.update(self.values_for(persona))
        return out

    def check_ids(self, scenarios: list[dict[str, Any]], calibration: Calibration, where: Path) -> None:
        """A persona id of the set that none of the graph's ``scenarios`` (all of them) has, but that is close to one
        that has no values of its own, is a typo that would leave that persona authored.

        Raises:
            ConfigError: naming the id, the file and the persona meant.
        """
        played = {persona for s in scenarios for persona, _ in calibration.personas(copy.deepcopy(s))}
        for persona in sorted(self.personas.keys() - played):
            meant = closest(persona, played - self.personas.keys())
            if meant is not None:
                raise ConfigError(
                    f"{where}: personas.{persona} is no persona of graph {self.graph}'s scenarios (did you mean "
                    f"{meant}?); as it is, {meant} would play the shared values"
                )

    def to_dict(self) -> dict[str, Any]:
        return {
            "graph": self.graph,
            "shared": self.shared,
            "personas": self.personas,
            "provenance": self.provenance,
            "fit": self.fit,
        }


def path_for(datasets: Path) -> Path:
    return datasets / FILE


def fingerprint(path: Path) -> str:
    """``<path> sha256:<first 12 hex digits>``: which calibrated set a run played."""
    return f"{path} sha256:{hashlib.sha256(path.read_bytes()).hexdigest()[:12]}"


def _values(where: str, values: Any, calibration: Calibration) -> dict[str, float]:
    knobs = {k.name: k for k in calibration.knobs}
    if not isinstance(values, Mapping):
        raise ConfigError(f"{where} must be a mapping of persona keys to numbers; valid keys: {', '.join(knobs)}")
    out: dict[str, float] = {}
    for key, value in values.items():
        if key not in knobs:
            raise ConfigError(f"{where}.{key} is not a calibrated key; valid keys: {', '.join(knobs)}")
        knob = knobs[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not knob.low <= value <= knob.high:
            raise ConfigError(f"{where}.{key}={value!r} is out of range; valid range: [{knob.low}, {knob.high}]")
        out[key] = knob.clip(value)
    return out


def read(path: Path, graph: str, calibration: Calibration) -> CalibratedSet:
    """The calibrated set at ``path``, checked against the graph's knobs.

    Raises:
        ConfigError: one line naming the file (or its key) and what to do.
    """
    if not path.is_file():
        raise ConfigError(
            f"no calibrated set for graph {graph} at {path}; write one with "
            f"`dialectica calibrate graph={graph}`, or use participants=scripted"
        )
    try:
        data = yaml.safe_load(path.read_text())
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"malformed calibrated set {path}: {type(exc).__name__}; rewrite it with `dialectica calibrate graph={graph}`"
        ) from exc
    if not isinstance(data, dict) or data.get("graph") != graph:
        raise ConfigError(f"malformed calibrated set {path}: expected a mapping with graph: {graph}")
    personas = data.get("personas") or {}
    if not isinstance(personas, Mapping):
        raise ConfigError(f"malformed calibrated set {path}: personas must map persona ids to values")
    return CalibratedSet(
        graph=graph,
        shared=_values(f"{path}: shared", data.get("shared") or {}, calibration),
        personas={str(p): _values(f"{path}: personas.{p}", v, calibration) for p, v in personas.items()},
        provenance=dict(data.get("provenance") or {}),
        fit=dict(data.get("fit") or {}),
    )
