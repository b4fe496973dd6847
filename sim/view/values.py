"""What a graph used as it is ended with and ran under: its final state and its context, as key/value tables."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from dialectica.sim.view.markup import Markup, join, table, tag

SHORT = 80  # characters of a value shown unfolded


def value_cell(value: Any) -> Markup:
    """A value in a table cell: short plain values as they are; long text, lists and mappings folded under their
    first characters (mappings and lists as indented JSON)."""
    if value is None or isinstance(value, (bool, int, float)):
        return tag("span", json.dumps(value), class_="value")  # exact, as the record holds it
    structured = isinstance(value, (Mapping, list))
    text = json.dumps(value, indent=1, ensure_ascii=False) if structured else str(value)
    if not structured and len(text) <= SHORT and "\n" not in text:
        return tag("span", text, class_="value")
    flat = " ".join(text.split())
    head = flat if len(flat) <= SHORT else f"{flat[:SHORT]}…"
    size = f"{len(value)} items" if structured else f"{len(text)} characters"
    return tag("details", Markup(tag("summary", f"{head} ({size})") + tag("pre", text)), class_="value")


def _table(values: Mapping[str, Any], empty: str) -> Markup:
    if not values:
        return tag("p", empty, class_="muted")
    return table(["key", "value"], [[key, value_cell(v)] for key, v in values.items()], class_="grid key-values")


def values_section(record: Mapping[str, Any]) -> Markup:
    """The context the episode ran with (knobs first), then the final state less ``messages``."""
    return join(
        [
            tag("h3", "Context and knobs"),
            _table(record.get("context") or {}, "The graph takes no context and has no knobs."),
            tag("h3", "Final state (less messages)"),
            _table(record.get("final_state") or {}, "The final state holds only messages."),
        ]
    )
