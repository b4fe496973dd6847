"""Pure decisions of the Analyst and the routers of Sophia's graph."""

from __future__ import annotations

from dialectica.graphs.maieutic.params import MaieuticParams
from dialectica.graphs.maieutic.reading import LearnerReading


def choose_move(reading: LearnerReading, frustration: float, circles: int, revised: bool, first_turn: bool,
                p: MaieuticParams) -> str:
    """End-game first, then the Good Will override, then examine; a challenge becomes ELICIT above the
    frustration threshold (the seed: "force socratic_move to ELICIT instead of CHALLENGE")."""
    if reading.ignorance or circles >= p.circling_limit:
        return "SYNTHESIZE"
    if reading.sentiment == "defensive":
        return "CONCEDE"
    if first_turn or revised or reading.bare_why:
        return "EXAMINE"
    return "ELICIT" if frustration > p.frustration_threshold else "CHALLENGE"


def search_query(reading: LearnerReading, move: str, thesis: str, p: MaieuticParams) -> str:
    """What the Librarian should look for: the concept behind a bare "Why?", or the thesis itself."""
    if not thesis or move not in ("EXAMINE", "CHALLENGE"):
        return ""
    return p.why_query_template.format(thesis=thesis) if reading.bare_why else thesis


def route_after_analyst(move: str, query: str) -> str:
    """synthesize / retrieve / respond."""
    if move == "SYNTHESIZE":
        return "synthesize"
    return "retrieve" if query else "respond"


def route_after_critic(verdict: str) -> str:
    """revise (back to the Interlocutor) / deliver."""
    return "revise" if verdict == "revise" else "deliver"
