"""How the Analyst reads a learner's message: thesis, sentiment, frustration, end-game cues (confusion,
quitting, affirming a view).

Pure functions over text; the Analyst node combines them with the state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dialectica.metrics.text import canonical_claim, sentences

# Confusion: the learner no longer knows what to hold (with no thesis in the same message).
_IGNORANCE = re.compile(
    r"\b(?:i (?:do not|don't|dont|no longer) know|no idea|i have no (?:answer|idea)|i(?:'m| am) (?:confused|lost|stuck)"
    r"|i(?:'m| am) not sure any ?more|i (?:can't|cannot|can not) answer|i (?:don't|do not) understand any ?more)\b",
    re.I,
)
# Quitting: the natural ways people end a conversation they are done with.
_QUIT = re.compile(
    r"\b(?:i give up|i(?:'m| am) done|i quit|let(?:'s| us) (?:stop|move on|leave it)|can we (?:please )?stop"
    r"|i (?:want|would like|need) to stop|stop here|enough of this|forget it|never ?mind|i(?:'m| am) out"
    r"|i(?:'m| am) (?:tired|sick) of (?:this|it)|i have nothing (?:more|else) to (?:say|add)"
    r"|i (?:don't|do not) want to (?:talk|continue|go on|discuss)|i (?:have|need) to go|goodbye|bye)\b",
    re.I,
)
# Affirming: the learner agrees with where the examination has led (not "yes, but ...").
_AFFIRM = re.compile(
    r"^(?:yes|yeah|yep|exactly|indeed|agreed|right|true|i agree|that(?:'s| is) (?:right|true|it)|you(?:'re| are) right)\b"
    r"|\bi(?:'m| am) (?:now )?convinced\b|\bi (?:now )?(?:agree|accept) (?:that|this|it)\b|\bthat settles it\b",
    re.I,
)
_BUT = re.compile(r"\b(?:but|however|although|though)\b", re.I)
_DEFENSIVE = (
    "stop asking",
    "trick question",
    "already told you",
    "twisting my words",
    "leave me alone",
    "you keep",
    "that's not fair",
    "this is pointless",
)
# "whatever" only as a dismissal opening a sentence: "getting whatever you want" is a thesis, not a sigh.
_FATIGUE = re.compile(r"\b(?:tired|can we stop|i guess|too long|exhausting)\b|(?:^|[.!?]\s+)whatever\b", re.I)
_CURIOUS = ("interesting", "i see", "good point", "i wonder", "that makes sense", "fair enough")
_NEGATION = re.compile(r"^(?:no|nope|wrong)\b[,.!]?\s*(?:that(?:'s| is) (?:wrong|not right|not it)[,.!]?)?\s*", re.I)
_BECAUSE = re.compile(r"\bbecause\b\s*(?P<reason>.+)$", re.I)
_FRAME = re.compile(
    r"^(?:(?:well|ok|okay|fine|so|hmm|maybe|perhaps|honestly|whatever|yes|yeah|exactly|indeed|but)[, ]+"
    r"|(?:i (?:don't|do not) know|i(?:'m| am) not sure),\s*)*"
    r"(?:i (?:still |now |really )?(?:think|believe|suppose|guess|would say|feel|maintain)(?: that)?"
    r"|i was right at first[:,]?|i (?:already )?told you(?: that)?[,:]?|my view is(?: that)?|in my view"
    r"|it seems to me(?: that)?|i(?:'m| am) (?:now )?convinced(?: now)?(?: that)?|i (?:now )?(?:agree|accept) that)?\s*",
    re.I,
)
_BARE_WHY = {"why", "but why", "how so", "why is that", "why not", "how"}


@dataclass(frozen=True)
class LearnerReading:
    thesis: str | None  # a new or restated thesis, None when the message states none
    negation: bool  # "No, that's wrong" about the previous thesis
    bare_why: bool
    ignorance: bool  # confusion: "I don't know", "I'm lost", with no thesis stated
    sentiment: str  # curious | defensive | fatigued
    frustration_delta: float
    quits: bool = False  # "I give up", "can we stop", "I'm done", ...
    affirms: bool = False  # "Yes, I am convinced", "Exactly", with no "but"


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
        if len(canonical_claim(core).split()) >= 2 and not _IGNORANCE.search(core) and not _QUIT.search(core):
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
    ignorance = bool(_IGNORANCE.search(text)) and thesis is None  # "I don't know, maybe X" still holds X
    affirms = bool(_AFFIRM.search(text.strip())) and not _BUT.search(text) and not negation
    return LearnerReading(thesis, negation, bare_why, ignorance, sentiment, delta, bool(_QUIT.search(text)), affirms)


def same_thesis(a: str, b: str) -> bool:
    return canonical_claim(a) == canonical_claim(b)
