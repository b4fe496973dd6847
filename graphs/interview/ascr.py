"""The ASCR reducer and how an ASCR is scored against a hidden truth.

Merge semantics (also in datasets/interview/README.md): lists are merged without
duplicates, first-seen order kept; scalars (text, choice, number) are last-write;
nested maps are merged key by key with the same rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def merge_ascr(left: Mapping[str, Any] | None, right: Mapping[str, Any] | None) -> dict[str, Any]:
    """LangGraph reducer: folds a new SCR (``right``) into the accumulated ASCR (``left``)."""
    merged = dict(left or {})
    for key, value in (right or {}).items():
        old = merged.get(key)
        if isinstance(old, list) and isinstance(value, list):
            merged[key] = old + [v for v in value if v not in old]
        elif isinstance(old, Mapping) and isinstance(value, Mapping):
            merged[key] = merge_ascr(old, value)
        else:
            merged[key] = value
    return merged


def facts(ascr: Mapping[str, Any], fields: Mapping[str, str]) -> set[tuple[str, str]]:
    """The ASCR as comparable (field, value) facts; free-text fields are left out (no exact truth)."""
    out: set[tuple[str, str]] = set()
    for name, value in ascr.items():
        kind = fields.get(name)
        if kind is None or kind == "text":
            continue
        if kind == "list":
            out |= {(name, str(v)) for v in value}
        elif kind == "map":
            out |= {(f"{name}.{k}", str(v)) for k, v in value.items()}
        else:
            out.add((name, str(value)))
    return out


def precision_recall(ascr: Mapping[str, Any], truth: Mapping[str, Any], fields: Mapping[str, str]) -> tuple[float, float]:
    """Share of the ASCR's facts that are true, and share of the true facts the ASCR holds.

    Precision of an empty ASCR is NaN (nothing claimed); recall with no true facts is NaN.
    """
    got, want = facts(ascr, fields), facts(truth, fields)
    hit = len(got & want)
    return (hit / len(got) if got else float("nan"), hit / len(want) if want else float("nan"))
