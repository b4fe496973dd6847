"""Why an episode ended, in words: the reason's meaning, and the graph's own sentence where it has one."""

from __future__ import annotations

from typing import Any

REASONS = {
    "converged": "The graph's stopping criteria were met",
    "max_rounds": "The round limit was reached before the criteria were met",
    "max_turns": "The turn limit was reached before the dialogue finished",
    "partial_report": "A layer failed or timed out, so only a partial report was written",
    "budget_exhausted": "The question budget ran out before the criteria were met",
    "error": "The episode raised an exception",
}


def last_line(traceback: str) -> str:
    lines = [line for line in traceback.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "unknown error"


def explain(record: dict[str, Any], graph_sentence: Any = None) -> str:
    """``Meaning of the reason: detail``; an error's detail is the exception line of its traceback."""
    reason = str(record.get("termination_reason", "unknown"))
    text = f"{REASONS.get(reason, f'Ended with {reason}')}:"
    if record.get("error"):
        return f"{text} {last_line(record['error'])}"
    detail = graph_sentence(record) if graph_sentence else ""
    return f"{text} {detail}" if detail else text[:-1] + "."
