"""Text helpers shared by graphs that must read natural-language answers.

A claim's canonical form is the set of its content words, stemmed by the Snowball English stemmer
(PyStemmer), with a negation kept on the word it negates: "the launch is not safe" gives
``launch not_safe``, which differs from ``launch safe``.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

_ABBREVIATIONS = {"et al.": "et al", "Dr.": "Dr", "e.g.": "eg", "i.e.": "ie", "vs.": "vs", "Mr.": "Mr", "Ms.": "Ms"}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z]+")
_CONTRACTION = re.compile(r"\b(can)not\b|n['’]t\b")
_NEGATIONS = frozenset({"not", "no", "never", "nor", "none", "neither", "nobody", "nothing", "nowhere", "without"})
_STOPWORDS = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be been being it its this
    that these those there their they them we our us i my me you your he she his her so than then
    too very can could will would should may might must shall do does did done have has had having which who
    whom what when where why how all any both each few more most other some such only own same just also
    into over under again further once here about against between through during before after above below
    up down out off now still even much many""".split()
)
# A leading frame such as "I would argue that" or "On reflection I accept that".
_FRAME = re.compile(r"^(?:[\w',-]+\s+){0,9}?that\s+", re.IGNORECASE)
_STEMMER = Stemmer.Stemmer("english")


def sentences(text: str) -> list[str]:
    """Splits text into sentences, keeping common abbreviations whole."""
    for abbreviation, plain in _ABBREVIATIONS.items():
        text = text.replace(abbreviation, plain)
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def _words(text: str) -> list[str]:
    return _WORD.findall(_CONTRACTION.sub(lambda m: f"{m[1] or ''} not", text.lower()))


def content_words(text: str) -> list[str]:
    """Lower-cased, stemmed words that carry content, in order; a negation ("not", "no", "never", "n't",
    ...) is kept as a ``not_`` prefix on the next content word (or as ``not`` when none follows)."""
    out: list[str] = []
    negated = False
    for word in _words(text):
        if word in _NEGATIONS:
            negated = True
        elif word not in _STOPWORDS and len(word) > 2:
            out.append(f"not_{_stem(word)}" if negated else _stem(word))
            negated = False
    if negated:
        out.append("not")
    return out


def canonical_claim(sentence: str) -> str:
    """Canonical form of a claim: its frame stripped, content words sorted.

    "I would argue that payers will accept a premium." and "The central point is that a premium will be
    accepted by payers" map to the same key, so Jaccard agreement compares what experts claim, not how they
    phrase it. A frame that negates ("I do not think that ...") is kept, so the claim keeps its sense.
    """
    text = sentence.strip().rstrip(".!")
    frame = _FRAME.match(text)
    if frame and not any(w in _NEGATIONS for w in _words(frame[0])):
        text = text[frame.end() :]
    return " ".join(sorted(set(content_words(text))))


def claim_set(text: str, min_words: int = 3) -> set[str]:
    """The canonical claims of an answer: one per declarative sentence with at least ``min_words`` content
    words (questions and bracketed notes such as a fallback's are not claims)."""
    return {
        canonical_claim(s)
        for s in sentences(text)
        if not s.endswith("?") and not s.startswith("[") and len(content_words(s)) >= min_words
    }
