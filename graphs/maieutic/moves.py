"""Pure decisions of the Analyst and the routers of Sophia's graph."""

from __future__ import annotations

from dialectica.graphs.maieutic.params import MaieuticParams
from dialectica.graphs.maieutic.reading import LearnerReading

ENDINGS = {
    "synthesis": "The learner affirmed a thesis they had revised to, after at least graph.min_exchanges examined "
    "exchanges; Sophia synthesised (clarity)",
    "aporia": "The learner reached confusion, quit or argued in circles after at least graph.min_exchanges "
    "examined exchanges; Sophia synthesised (productive confusion)",
    "gave_up": "The learner quit or admitted ignorance before the examination had graph.min_exchanges exchanges; "
    "Sophia closed with a synthesis",
    "max_turns": "The turn limit was reached before the dialogue ended",
}
CONVERGING = ("synthesis", "aporia")  # what the tutor is tuned for: an examination that reached depth


def ending(reading: LearnerReading, circles: int, examined: int, depth: int, p: MaieuticParams) -> str | None:
    """How the dialogue ends with this learner turn, or None when it goes on.

    ``examined`` counts Sophia's turns so far, ``depth`` the learner's thesis revisions (this turn's included).
    Affirming a revised thesis ends it once the examination is deep enough (before that Sophia examines the
    new view further); confusion, quitting and circling end it at any point (the seed's end-game detection,
    "Aporia / Fatigue Detected"), as aporia once it is deep enough, else as giving up (circling is aporia).
    """
    deep = examined >= p.min_exchanges
    if reading.affirms and depth >= 1 and deep:
        return "synthesis"
    if circles >= p.circling_limit:
        return "aporia"
    if reading.ignorance or reading.quits:
        return "aporia" if deep else "gave_up"
    return None


def choose_move(
    reading: LearnerReading,
    frustration: float,
    circles: int,
    revised: bool,
    first_turn: bool,
    p: MaieuticParams,
    examined: int = 0,
    depth: int = 0,
) -> str:
    """End-game first (:func:`ending`), then the Good Will override, then examine; a challenge becomes ELICIT
    above the frustration threshold (the seed: "force socratic_move to ELICIT instead of CHALLENGE")."""
    if ending(reading, circles, examined, depth, p) is not None:
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
