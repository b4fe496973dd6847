"""How the Analyst reads a learner's message: thesis, sentiment, frustration, end-game cues.

Pure functions over text; the Analyst node combines them with the state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dialectica.metrics.text import canonical_claim, sentences

_IGNORANCE = re.compile(r"\b(?:i (?:do not|don't|dont) know|no idea|i give up|i have no answer)\b", re.I)
_DEFENSIVE = ("stop asking", "trick question", "already told you", "twisting my words", "leave me alone",
              "you keep", "that's not fair", "this is pointless")
# "whatever" only as a dismissal opening a sentence: "getting whatever you want" is a thesis, not a sigh.
_FATIGUE = re.compile(r"\b(?:tired|can we stop|i guess|too long|exhausting)\b|(?:^|[.!?]\s+)whatever\b", re.I)
_CURIOUS = ("interesting", "i see", "good point", "i wonder", "that makes sense", "fair enough")
_NEGATION = re.compile(r"^(?:no|nope|wrong)\b[,.!]?\s*(?:that(?:'s| is) (?:wrong|not right|not it)[,.!]?)?\s*", re.I)
_BECAUSE = re.compile(r"\bbecause\b\s*(?P<reason>.+)$", re.I)
_FRAME = re.compile(
    r"^(?:(?:well|ok|okay|fine|so|hmm|maybe|perhaps|honestly|whatever)[, ]+)*"
    r"(?:i (?:still |now |really )?(?:think|believe|suppose|guess|would say|feel|maintain)(?: that)?"
    r"|i was right at first[:,]?|i (?:already )?told you(?: that)?[,:]?|my view is(?: that)?|in my view"
    r"|it seems to me(?: that)?)?\s*",
    re.I,
)
_BARE_WHY = {"why", "but why", "how so", "why is that", "why not", "how"}


@dataclass(frozen=True)
class LearnerReading:
    thesis: str | None  # a new or restated thesis, None when the message states none
    negation: bool  # "No, that's wrong" about the previous thesis
    bare_why: bool
    ignorance: bool
    sentiment: str  # curious | defensive | fatigued
    frustration_delta: float


def _clean(text: str) -> str:
    return text.strip().strip("\"'").rstrip(".!").strip()


def extract_thesis(text: str, previous: str | None) -> tuple[str | None, bool]:
    """The thesis a message asserts, and whether it rejects the previous one.

    "No, that's wrong, because it ignores X" becomes "the previous definition (P) is
    insufficient because it ignores X"; "I think justice is Y" becomes "justice is Y".
    """
    stripped = text.strip()
    negation = bool(_NEGATION.match(stripped)) and bool(re.match(r"^(?:no|nope|wrong)\b", stripped, re.I))
    if negation:
        because = _BECAUSE.search(stripped)
        reason = _clean(because["reason"]) if because else "it does not hold in every case"
        subject = f" ({previous})" if previous else ""
        return f"the previous definition{subject} is insufficient because {reason}", True
    for sentence in sentences(stripped):
        if sentence.endswith("?"):
            continue
        core = _clean(_FRAME.sub("", sentence))
        if core.lower() in _CURIOUS or any(cue in core.lower() for cue in _DEFENSIVE):
            continue  # "That makes sense." acknowledges and "Stop asking me trick questions!" protests: no thesis
        if len(canonical_claim(core).split()) >= 2 and not _IGNORANCE.search(core):
            return core[0].lower() + core[1:], False
    return None, False


def read_learner(text: str, previous: str | None) -> LearnerReading:
    lowered = text.lower()
    thesis, negation = extract_thesis(text, previous)
    defensive = any(cue in lowered for cue in _DEFENSIVE)
    fatigued = bool(_FATIGUE.search(text.strip()))
    curious = any(cue in lowered for cue in _CURIOUS)
    delta = 2.0 * defensive + 1.0 * fatigued + min(2, lowered.count("!")) * 0.5 - 1.0 * curious
    sentiment = "defensive" if defensive else "fatigued" if fatigued else "curious"
    bare_why = re.sub(r"[^a-z ]", "", lowered).strip() in _BARE_WHY
    return LearnerReading(thesis, negation, bare_why, bool(_IGNORANCE.search(text)), sentiment, delta)


def same_thesis(a: str, b: str) -> bool:
    return canonical_claim(a) == canonical_claim(b)
