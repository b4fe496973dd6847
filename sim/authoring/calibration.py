"""What a graph declares to be calibrated: its behaviour statistics and the persona parameters that move them.

A graph's ``GraphSpec.calibration`` is a :class:`Calibration`. ``behaviour(records)`` turns episode records
(scripted or LLM: only what both casts leave on record) into per-turn statistics, and ``knobs`` are the
numeric persona keys of its scripted cast that ``dialectica calibrate`` may set. ``personas(scenario)``
finds the persona mappings inside a prepared scenario, so that a calibrated set can be applied to them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dialectica.metrics import FullRecord


@dataclass(frozen=True)
class Knob:
    """One numeric persona key of a scripted cast.

    Attributes:
        name: The key in each persona mapping (``off_topic``, ``openness``...).
        low, high: The range the fit searches.
        integer: Whether the key takes whole numbers (``items_per_answer``).
        doc: What it does, in a few words.
    """

    name: str
    low: float
    high: float
    integer: bool = False
    doc: str = ""

    def clip(self, value: float) -> float | int:
        """``value`` within the range, rounded for an integer knob."""
        value = min(max(float(value), self.low), self.high)
        return round(value) if self.integer else value


@dataclass(frozen=True)
class Calibration:
    """A graph's part in calibration.

    Attributes:
        behaviour: ``behaviour(records)`` -> {statistic: value}: the per-turn statistics that drive the graph's
            outcome, from records of any cast (NaN where a statistic has no data). Pure.
        knobs: The scripted personas' parameters that the fit may set.
        personas: ``personas(scenario)`` -> [(persona id, its mutable mapping)] inside a prepared scenario.
        scales: A statistic's typical spread, to weigh it in the fit's loss (1.0 unless given): a count
            per turn needs a larger scale than a rate.
        docs: One line per statistic, for reports.
    """

    behaviour: Callable[[Iterable[FullRecord]], dict[str, float]]
    knobs: tuple[Knob, ...]
    personas: Callable[[dict[str, Any]], list[tuple[str, dict[str, Any]]]]
    scales: Mapping[str, float] = field(default_factory=dict)
    docs: Mapping[str, str] = field(default_factory=dict)
