"""Reading an answer into an SCR (the schema-conforming response of one Q&A)."""

from __future__ import annotations

import re
from typing import Any

from dialectica.graphs.interview.schema import DiscoverySchema, Field

_NUMBER = re.compile(r"\b(\d{1,6})\b")
_EVASIVE = re.compile(r"\b(?:hard to say|it depends|not sure|no idea|complicated|varies|we manage somehow)\b", re.I)


def _mentions(text: str, phrases: tuple[str, ...]) -> bool:
    return any(re.search(rf"\b{re.escape(p)}\b", text) for p in phrases)


def _read(field: Field, text: str, answer: str) -> Any:
    if field.kind == "list":
        return [value for value, phrases in field.vocabulary.items() if _mentions(text, phrases)] or None
    if field.kind == "choice":
        hits = [value for value, phrases in field.vocabulary.items() if _mentions(text, phrases)]
        return hits[-1] if hits else None
    if field.kind == "map":
        counts = {}
        for key, phrases in field.vocabulary.items():
            for phrase in phrases:
                m = re.search(rf"\b(\d{{1,4}})\s+{re.escape(phrase)}\b", text)
                if m:
                    counts[key] = int(m.group(1))
                    break
        return counts or None
    if field.kind == "number":
        m = _NUMBER.search(text)
        return int(m.group(1)) if m else None
    cleaned = answer.strip().rstrip(".")
    return None if _EVASIVE.search(cleaned) else cleaned or None


def interpret(answer: Any, schema: DiscoverySchema, target: str | None) -> dict[str, Any]:
    """SCR for one answer: the asked field, plus any choice/list/map field the answer names outright.

    Non-text, empty or garbled answers give {}; a text field takes the answer only when it was asked,
    so small talk never lands in the ASCR.
    """
    if not isinstance(answer, str) or not answer.strip() or not any(ch.isalpha() for ch in answer):
        return {}
    text = answer.lower()
    scr: dict[str, Any] = {}
    for field in schema.fields:
        if field.name != target and field.kind in ("text", "number"):
            continue
        value = _read(field, text, answer)
        if value is not None:
            scr[field.name] = value
    return scr
