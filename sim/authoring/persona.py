"""Phrasing persona numbers (0..1 rates) as temperament a language model can act on."""

from __future__ import annotations


def degree(value: float, low: str, mid: str, high: str) -> str:
    """``low`` below 0.35, ``high`` from 0.65, else ``mid``."""
    return low if value < 0.35 else high if value >= 0.65 else mid


def bullet(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)
