"""Why an episode ended, in words: the reason's meaning, and the graph's own sentence where it has one."""

from __future__ import annotations

from typing import Any

from dialectica.metrics import FullRecord
from dialectica.sim.authoring.termination import MEANINGS

REASONS = MEANINGS  # the harness's reasons; a graph's declared endings add their own meanings


def last_line(traceback: str) -> str:
    lines = [line for line in traceback.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "unknown error"


def explain(record: FullRecord, graph_sentence: Any = None, endings: dict[str, str] | None = None) -> str:
    """``Meaning of the reason: detail``; an error's detail is the exception line of its traceback; ``endings``
    are the graph's declared meanings, which come first."""
    reason = str(record.get("termination_reason", "unknown"))
    meaning = (endings or {}).get(reason) or REASONS.get(reason) or f"Ended with {reason}"
    text = f"{meaning}:"
    if record.get("error"):
        return f"{text} {last_line(record['error'])}"
    detail = graph_sentence(record) if graph_sentence else ""
    return f"{text} {detail}" if detail else text[:-1] + "."
