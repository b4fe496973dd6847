"""The tutor's own figures: critic loops per turn and the share of each Socratic move."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dialectica.pages import save, subplots


def _turns(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t for r in records for t in r.get("per_round", [])]


def critic_loop_histogram(records: Sequence[dict[str, Any]], out_dir: Path) -> Path:
    """How many times the Critic sent a turn's draft back, over all tutor turns."""
    loops = [t["critic_loops"] for t in _turns(records) if t.get("move") != "SYNTHESIZE"]
    fig, ax = subplots(figsize=(6.0, 3.8), dpi=110)
    top = max(loops, default=0)
    ax.hist(loops, bins=[x - 0.5 for x in range(top + 2)], rwidth=0.8, color="#4c72b0")
    ax.set_xticks(range(top + 1))
    ax.set_xlabel("critic failures in one tutor turn")
    ax.set_ylabel("turns")
    ax.set_title(f"Critic loops per turn ({len(loops)} turns)")
    return save(fig, out_dir / "critic_loops.png")


def move_distribution(records: Sequence[dict[str, Any]], out_dir: Path) -> Path:
    """Share of turns per Socratic move."""
    from collections import Counter

    counts = Counter(t["move"] for t in _turns(records))
    total = sum(counts.values()) or 1
    names = sorted(counts)
    fig, ax = subplots(figsize=(6.0, 3.8), dpi=110)
    ax.bar(names, [counts[n] / total for n in names], color="#55a868")
    ax.set_ylabel("share of turns")
    ax.set_title("Socratic moves")
    return save(fig, out_dir / "moves.png")
