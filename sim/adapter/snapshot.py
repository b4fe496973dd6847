"""A graph's final state and runtime context as plain JSON for its episode record (and page).

Values the graph keeps in its own types become JSON a person can read: dataclasses and pydantic models their
fields, messages ``type: text``, enums their value, anything else its ``repr`` without memory addresses (so that
the same seed still gives the same record). Long strings are cut: the record shows the state, it does not
keep it (``checkpoints=true`` keeps every checkpoint whole).
"""

from __future__ import annotations

import dataclasses
import enum
import math
import re
from collections.abc import Mapping
from typing import Any

MAX_CHARS = 2000  # of one string in the record
MAX_ITEMS = 200  # of one list or mapping
MAX_DEPTH = 6
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CHARS else f"{text[:MAX_CHARS]}… [{len(text) - MAX_CHARS} more characters]"


def _fields(value: Any) -> Mapping[str, Any] | None:
    """A dataclass's or pydantic model's fields (shallow: no deep copy of what they hold), else None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(getattr(type(value), "model_fields", None), dict):
        return {name: getattr(value, name, None) for name in type(value).model_fields}
    return None


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON: str, finite number, bool, None, list or str-keyed mapping."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return _cut(value)
    if isinstance(value, enum.Enum):
        return plain(value.value, depth)
    if depth >= MAX_DEPTH:
        return _cut(_ADDRESS.sub("", repr(value)))
    if hasattr(value, "type") and hasattr(value, "content") and hasattr(value, "pretty_repr"):  # a message
        content = value.content if isinstance(value.content, str) else repr(value.content)
        return _cut(f"{value.type}: {content}")
    if isinstance(value, Mapping):
        items = list(value.items())
        out = {str(k): plain(v, depth + 1) for k, v in items[:MAX_ITEMS]}
        if len(items) > MAX_ITEMS:
            out["…"] = f"{len(items) - MAX_ITEMS} more items"
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
        out_list = [plain(v, depth + 1) for v in items[:MAX_ITEMS]]
        return out_list + ([f"… {len(items) - MAX_ITEMS} more items"] if len(items) > MAX_ITEMS else [])
    fields = _fields(value)
    if fields is not None:
        return plain(fields, depth)
    return _cut(_ADDRESS.sub("", repr(value)))


def final_state(values: Mapping[str, Any]) -> dict[str, Any]:
    """The graph's final state less ``messages`` (the transcript holds them), as JSON."""
    return {str(k): plain(v) for k, v in values.items() if k != "messages"}


def context_values(context: Any, knobs: Mapping[str, Any]) -> dict[str, Any]:
    """What an episode ran with: the factory's ``knobs`` (those that built its graph), then the runtime context's
    fields (a mapping's items; an object of another kind as one ``context`` entry), as JSON."""
    out = {str(k): plain(v) for k, v in knobs.items()}
    if context is None:
        return out
    fields = context if isinstance(context, Mapping) else _fields(context)
    if fields is None:
        own = {k: v for k, v in vars(context).items() if not k.startswith("_")} if hasattr(context, "__dict__") else None
        fields = own or {"context": context}
    return out | {str(k): plain(v) for k, v in fields.items()}
