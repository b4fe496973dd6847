"""Sophia's pure parts: the Critic's checks, the Analyst's reading and moves, the routers."""

from __future__ import annotations

from importlib import import_module

import pytest

from dialectica.graph import ConfigError
from dialectica.graphs.maieutic.params import MaieuticParams
from dialectica.graphs.maieutic.reading import LearnerReading, extract_thesis, read_learner
from dialectica.sim.authoring.params import build_params

# The modules by their full names: the package's own attributes ``critic`` and ``moves`` are its metric
# factories (graphs/maieutic/__init__.py imports them from .metrics), which shadow these submodules.
critic = import_module("dialectica.graphs.maieutic.critic")
moves = import_module("dialectica.graphs.maieutic.moves")

P = MaieuticParams()


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("One. Two? Three!", 3),
        ("Consider e.g. the ring of Gyges. Is it just?", 2),
        ("As Dr. Jowett translates it, justice is harmony. Is it?", 2),
        ("In the Republic <cite>rep_331c</cite> Cephalus pays debts. Is that all?", 2),
        ("", 0),
    ],
)
def test_sentence_count_handles_abbreviations_and_tags(text, count):
    assert critic.sentence_count(text) == count


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("What is justice?", True),
        ("What is justice?  \n", True),  # trailing whitespace aside
        ('Socrates asks "what is justice?" and we agree.', False),  # a "?" inside a quotation is not enough
        ('You ask, as Socrates did, "what is justice?"', False),  # the seed: the draft ends with a "?", not a quote
        ("Is that so? <cite>meno_80d</cite>", False),  # a tag after the "?" fails check 2
        ("Is that so <cite>meno_80d</cite>?", True),
        ("Think about that.", False),
        ("", False),
        ("Why? Because it is.", False),
    ],
)
def test_final_question_check_is_the_seeds(text, question):
    assert critic.ends_with_question(text) is question


def test_failed_checks_in_order_and_citation_only_with_documents():
    long_no_q = "One. Two. Three. Four. Five."
    assert critic.failed_checks(long_no_q, has_documents=True, max_sentences=4) == ["too_long", "no_question", "no_citation"]
    assert critic.failed_checks(long_no_q, has_documents=False, max_sentences=5) == ["no_question"]
    assert critic.failed_checks("", has_documents=True, max_sentences=4) == ["no_question", "no_citation"]
    ok = "You hold that justice is harmony. Plato <cite>rep_443d</cite> agrees. Does it follow?"
    assert critic.failed_checks(ok, has_documents=True, max_sentences=4) == []


def test_check_one_fails_above_four_sentences_not_at_four():
    assert critic.failed_checks("One. Two. Three. Is it four?", has_documents=False, max_sentences=4) == []
    assert critic.failed_checks("One. Two. Three. Four. Is it five?", has_documents=False, max_sentences=4) == ["too_long"]


def test_verdict_names_every_check_and_check_three_only_applies_with_documents():
    draft = "One. Two. Three. Four. Five."
    assert critic.verdict(draft, has_documents=False, max_sentences=4) == {
        "too_long": "failed",
        "no_question": "failed",
        "no_citation": "not_applicable",
    }
    assert critic.verdict("Is it <cite>a</cite>?", has_documents=True, max_sentences=4) == {
        "too_long": "passed",
        "no_question": "passed",
        "no_citation": "passed",
    }


def test_instruction_is_the_seeds_one_sentence_for_a_long_draft():
    assert critic.instruction(["too_long"]) == "Too long. Cut to 1 sentence."
    text = critic.instruction(["too_long", "no_citation"])
    assert text.startswith("Too long. Cut to 1 sentence. ") and "<cite>" in text
    assert "End with one question" not in text
    assert "End with one question" in critic.instruction(["no_question"])
    assert "3 sentences" not in critic.instruction(list(critic.CHECKS))


@pytest.mark.parametrize(
    ("message", "previous", "thesis", "negation"),
    [
        (
            "I think justice is giving each person what they are owed.",
            None,
            "justice is giving each person what they are owed",
            False,
        ),
        ("Well, I still think courage is endurance of the soul.", "x", "courage is endurance of the soul", False),
        (
            "No, that's wrong, because repaying a debt can cause harm.",
            "justice is repaying debts",
            "the previous definition (justice is repaying debts) is insufficient because repaying a debt can cause harm",
            True,
        ),
        (
            "No.",
            "virtue is knowledge",
            "the previous definition (virtue is knowledge) is insufficient because it does not hold in every case",
            True,
        ),
        ("Why?", "x", None, False),
        ("I don't know.", "x", None, False),
    ],
)
def test_thesis_extraction(message, previous, thesis, negation):
    assert extract_thesis(message, previous) == (thesis, negation)


@pytest.mark.parametrize(
    ("message", "thesis", "sentiment"),
    [
        (
            "Stop asking me trick questions! I already told you that piety is prayer to the gods.",
            "piety is prayer to the gods",
            "defensive",
        ),
        (
            "Honestly, this is exhausting. I still think courage is endurance of the soul!",
            "courage is endurance of the soul",
            "fatigued",
        ),
        ("Whatever, I guess courage is endurance of the soul.", "courage is endurance of the soul", "fatigued"),
        ("That makes sense.", None, "curious"),
        ("I see. I still think love is a ladder of beauty.", "love is a ladder of beauty", "curious"),
        ("I think the good life is getting whatever you want.", "the good life is getting whatever you want", "curious"),
    ],
)
def test_remarks_about_the_dialogue_are_not_theses(message, thesis, sentiment):
    reading = read_learner(message, "x")
    assert (reading.thesis, reading.sentiment) == (thesis, sentiment)


def test_reading_cues():
    angry = read_learner("Stop asking me trick questions! I already told you that piety is prayer.", "piety is prayer")
    assert angry.sentiment == "defensive" and angry.frustration_delta >= 2
    assert read_learner("Why?", "x").bare_why and read_learner("But why?", "x").bare_why
    assert not read_learner("Why is justice good for the just?", "x").bare_why
    assert read_learner("I don't know anymore.", "x").ignorance
    assert read_learner("Interesting. I think love is a ladder.", "x").frustration_delta < 0


def _reading(**kw) -> LearnerReading:
    base = dict(thesis=None, negation=False, bare_why=False, ignorance=False, sentiment="curious", frustration_delta=0.0)
    return LearnerReading(**(base | kw))


@pytest.mark.parametrize(
    ("reading", "frustration", "circles", "revised", "first", "move"),
    [
        (_reading(ignorance=True, sentiment="defensive"), 9, 0, False, False, "SYNTHESIZE"),
        (_reading(), 0, 3, False, False, "SYNTHESIZE"),  # circled three times
        (_reading(sentiment="defensive"), 9, 2, False, False, "CONCEDE"),  # Good Will beats frustration
        (_reading(), 7.5, 0, False, False, "ELICIT"),  # frustration above 7: ELICIT instead of CHALLENGE
        (_reading(), 7.5, 0, True, False, "EXAMINE"),  # ... but a revised thesis is still examined
        (_reading(), 7.0, 0, False, False, "CHALLENGE"),  # at the threshold: not above
        (_reading(), 0, 0, True, False, "EXAMINE"),
        (_reading(), 0, 0, False, True, "EXAMINE"),
        (_reading(bare_why=True), 0, 0, False, False, "EXAMINE"),
    ],
)
def test_choose_move(reading, frustration, circles, revised, first, move):
    assert moves.choose_move(reading, frustration, circles, revised, first, P) == move


def test_thresholds_are_params():
    strict = MaieuticParams(frustration_threshold=3.0, circling_limit=1)
    assert moves.choose_move(_reading(), 3.5, 0, False, False, strict) == "ELICIT"
    assert moves.choose_move(_reading(), 0, 1, False, False, strict) == "SYNTHESIZE"


def test_garbage_in_fix_builds_query_from_thesis():
    query = moves.search_query(_reading(bare_why=True), "EXAMINE", "justice is fairness", P)
    assert query == "philosophical arguments against justice is fairness"
    assert moves.search_query(_reading(), "CHALLENGE", "justice is fairness", P) == "justice is fairness"
    assert moves.search_query(_reading(), "CONCEDE", "justice is fairness", P) == ""


@pytest.mark.parametrize(
    ("move", "query", "route"),
    [("SYNTHESIZE", "q", "synthesize"), ("EXAMINE", "q", "retrieve"), ("CONCEDE", "", "respond"), ("ELICIT", "", "respond")],
)
def test_route_after_analyst(move, query, route):
    assert moves.route_after_analyst(move, query) == route


def test_route_after_critic():
    assert moves.route_after_critic("revise") == "revise"
    assert moves.route_after_critic("pass") == moves.route_after_critic("cap") == "deliver"


@pytest.mark.parametrize(
    ("message", "quits", "ignorance"),
    [
        ("I don't know. I give up.", True, True),
        ("I'm tired of this, can we stop?", True, False),
        ("Honestly, I'm done.", True, False),
        ("Let's move on, I have nothing more to add.", True, False),
        ("Forget it.", True, False),
        ("I'm lost.", False, True),
        ("I am not sure anymore.", False, True),
        ("I don't know, maybe courage is knowing what to fear.", False, False),  # a thesis beside it is held
        ("I think courage is endurance.", False, False),
        ("Stop asking me trick questions!", False, False),  # a protest, not a quit: Good Will answers it
    ],
)
def test_quitting_and_confusion_in_the_words_people_use(message, quits, ignorance):
    reading = read_learner(message, "courage is endurance")
    assert (reading.quits, reading.ignorance) == (quits, ignorance)


@pytest.mark.parametrize(
    ("message", "affirms", "thesis"),
    [
        ("Yes, I am convinced now that justice is giving each their due.", True, "justice is giving each their due"),
        ("Exactly.", True, None),
        ("I agree that it does not hold in every case.", True, "it does not hold in every case"),
        ("Yes, but I still think justice is fairness.", False, "justice is fairness"),
        (
            "No, that's wrong, because it ignores intent.",
            False,
            "the previous definition (x) is insufficient because it ignores intent",
        ),
    ],
)
def test_affirming_a_view_is_read_without_losing_its_thesis(message, affirms, thesis):
    reading = read_learner(message, "x")
    assert (reading.affirms, reading.thesis) == (affirms, thesis)


@pytest.mark.parametrize(
    ("reading", "circles", "examined", "depth", "ending"),
    [
        (_reading(affirms=True), 0, 3, 1, "synthesis"),  # a revised view affirmed once the examination is deep
        (_reading(affirms=True), 0, 2, 1, None),  # too soon: Sophia examines it further
        (_reading(affirms=True), 0, 5, 0, None),  # the opening view affirmed: nothing was revised
        (_reading(ignorance=True), 0, 3, 0, "aporia"),
        (_reading(quits=True), 0, 7, 2, "aporia"),
        (_reading(ignorance=True), 0, 2, 1, "gave_up"),
        (_reading(quits=True), 0, 0, 0, "gave_up"),  # quitting in the first turn
        (_reading(), 3, 1, 0, "aporia"),  # circling is aporia at any depth
        (_reading(), 2, 9, 3, None),
    ],
)
def test_how_a_dialogue_ends(reading, circles, examined, depth, ending):
    assert moves.ending(reading, circles, examined, depth, P) == ending
    assert (moves.choose_move(reading, 0, circles, False, False, P, examined, depth) == "SYNTHESIZE") == (ending is not None)


def test_the_examinations_depth_is_a_range_checked_key():
    shallow = MaieuticParams(min_exchanges=0)
    assert moves.ending(_reading(ignorance=True), 0, 0, 0, shallow) == "aporia"
    with pytest.raises(ConfigError, match="graph.min_exchanges"):
        build_params(MaieuticParams, {"min_exchanges": -1}, "graph")
