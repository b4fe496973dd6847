"""Text helpers shared by graphs that must read natural-language answers."""

from __future__ import annotations

import re

_ABBREVIATIONS = {"et al.": "et al", "Dr.": "Dr", "e.g.": "eg", "i.e.": "ie", "vs.": "vs", "Mr.": "Mr", "Ms.": "Ms"}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z]+")
_STOPWORDS = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be been being it its this
    that these those there their they them we our us i my me you your he she his her not no nor so than then
    too very can could will would should may might must shall do does did done have has had having which who
    whom what when where why how all any both each few more most other some such only own same just also
    into over under again further once here about against between through during before after above below
    up down out off now still even much many""".split()
)
# A leading frame such as "I would argue that" or "On reflection I accept that".
_FRAME = re.compile(r"^(?:[\w',-]+\s+){0,9}?that\s+", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """Splits text into sentences, keeping common abbreviations whole."""
    for abbreviation, plain in _ABBREVIATIONS.items():
        text = text.replace(abbreviation, plain)
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> list[str]:
    """Lower-cased, crudely stemmed words that carry content."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOPWORDS and len(w) > 2]


def canonical_claim(sentence: str) -> str:
    """Canonical form of a claim: its frame stripped, content words sorted.

    "I would argue that payers will accept a premium." and "The central point
    is that a premium will be accepted by payers" map to the same key, so
    Jaccard agreement compares what experts claim, not how they phrase it.
    """
    core = _FRAME.sub("", sentence.strip().rstrip(".!"), count=1)
    return " ".join(sorted(set(content_words(core))))
