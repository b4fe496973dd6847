"""Claim canonicalisation: paraphrases meet, negations and different claims stay apart."""

from __future__ import annotations

import pytest

from dialectica.metrics.agreement import jaccard
from dialectica.metrics.text import canonical_claim, claim_set, content_words

SAME = [
    ("I would argue that payers will accept a premium.", "The central point is that a premium will be accepted by payers"),
    ("Payers accepted premiums.", "payers accept the premium"),
    ("The launch is not safe.", "The launch isn't safe"),
    ("The launch is never safe", "On reflection I accept that the launch is never safe."),
    ("Customers are running away from subscriptions", "Customers run away from the subscription"),
    ("Trials cannot show efficacy", "trials can not show efficacy"),
]
DIFFERENT = [
    ("The launch is safe.", "The launch is not safe."),
    ("The launch is safe.", "The launch is never safe."),
    ("Payers will accept a premium.", "Payers will not accept a premium."),
    ("I think that the launch is safe.", "I do not think that the launch is safe."),
    ("Demand rises with price", "Demand falls with price"),
    ("Trials cannot show efficacy", "Trials can show efficacy"),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_paraphrases_have_one_canonical_form(a, b):
    assert canonical_claim(a) == canonical_claim(b)


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_negated_or_different_claims_stay_apart(a, b):
    assert canonical_claim(a) != canonical_claim(b)


def test_negation_binds_to_the_next_content_word_and_the_stemmer_is_snowball():
    assert content_words("The launch is not safe") == ["launch", "not_safe"]
    assert content_words("generously generalised generation") == ["generous", "generalis", "generat"]
    assert content_words("it is not") == ["not"]


def test_claim_set_skips_questions_fallbacks_and_short_sentences():
    text = "Payers will accept a premium. Will payers accept it? [Expert X was unable to respond] Yes indeed."
    assert claim_set(text) == {canonical_claim("Payers will accept a premium.")}
    assert jaccard(claim_set("The launch is safe for patients."), claim_set("The launch is not safe for patients.")) == 0.0
