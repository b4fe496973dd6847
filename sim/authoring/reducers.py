"""State reducers shared by graphs (LangGraph merges node updates with these)."""

from __future__ import annotations

from typing import Any


def upsert_by_id(left: list[dict[str, Any]], right: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Appends new items and replaces items whose ``id`` is already present, keeping order."""
    merged = {item["id"]: item for item in left}
    for item in right:
        merged[item["id"]] = item
    return list(merged.values())


def merge_lists_by_key(left: dict[str, list[Any]], right: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Merges two maps of lists, extending the lists of keys present in both."""
    merged = {key: list(items) for key, items in left.items()}
    for key, items in right.items():
        merged.setdefault(key, []).extend(items)
    return merged
