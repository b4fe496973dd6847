"""Sophia's graph end to end with fake voices: the seed's two workflows, the critic cap, the dialogue loop."""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import replace

import numpy as np
import pytest
from langchain_core.messages import HumanMessage

from dialectica.graphs.maieutic.build import build_maieutic, outcome, play, recursion_limit
from dialectica.graphs.maieutic.nodes import MaieuticDeps
from dialectica.graphs.maieutic.params import MaieuticParams
from dialectica.graphs.maieutic.scripted import ScriptedSophia
from dialectica.sim.authoring.retrieval import Library
from dialectica.sim.authoring.scripted import ScriptedChatModel
from dialectica.sim.authoring.spec import Episode
from dialectica.sim.authoring.termination import TerminationReason

PASSAGES = [
    {
        "id": "rep_331c",
        "work": "Republic",
        "author": "Plato",
        "locus": "331c",
        "topics": ["justice"],
        "kind": "argument",
        "text": "Cephalus says justice is paying debts. Socrates objects with the madman's weapon.",
    },
    {
        "id": "rep_514a",
        "work": "Republic",
        "author": "Plato",
        "locus": "514a",
        "topics": ["justice"],
        "kind": "analogy",
        "text": "Prisoners in a cave take shadows for reality. One is freed and sees the sun.",
    },
]


class RecordingEmbed:
    """Deterministic fake embeddings; queries that mention justice land near the first passage."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        rows = []
        for text in texts:
            noise = np.frombuffer(hashlib.sha256(text.encode()).digest()[:8], dtype=np.uint8) / 2550.0
            base = np.zeros(8)
            base[0 if "justice" in text.lower() else 1] = 1.0
            rows.append(base + noise)
        return np.stack(rows)


def _deps(interlocutor, learner_lines=(), embed=None, calls=None):
    lines = iter(learner_lines)
    embed = embed or RecordingEmbed()

    def voice(messages):
        if calls is not None:
            calls.append(messages)
        return interlocutor(messages)

    return MaieuticDeps(
        interlocutor=ScriptedChatModel(policy=voice),
        synthesizer=ScriptedChatModel(policy=lambda m: "We began here and ended there. As in the cave, shadows mislead."),
        library=Library(PASSAGES, embed),
        learner=ScriptedChatModel(policy=lambda m: next(lines)),
        question="What is justice?",
        character="test",
    )


GOOD = "You hold that justice is fairness. Plato <cite>rep_331c</cite> doubts it. What would Cephalus say?"


def _graph(deps, params=None):
    """The compiled graph and one episode's runtime context (its deps and params)."""
    return build_maieutic(), Episode(deps, params or MaieuticParams())


def _turn(graph, text, thread="t"):
    compiled, episode = graph
    config = {"configurable": {"thread_id": thread}, "recursion_limit": recursion_limit(episode.params)}
    return compiled.invoke({"topic": "justice", "messages": [HumanMessage(text)]}, config, context=episode)


def test_good_will_override():
    calls: list = []
    sophia = ScriptedSophia(__import__("random").Random(0), discipline=1.0)
    graph = _graph(_deps(sophia.interlocutor, calls=calls), MaieuticParams())
    _turn(graph, "I think justice is fairness.")
    state = _turn(graph, "Stop asking me trick questions! I already told you that justice is fairness.")
    assert state["user_sentiment"] == "defensive" and state["socratic_move"] == "CONCEDE"
    assert state["good_will_overrides"] == 1
    prompt = calls[-1][-1].content
    assert "Move: CONCEDE" in prompt and "Do not use Socratic irony. Speak plainly" in prompt
    assert str(state["messages"][-1].content).startswith("You are right to be frustrated")
    assert state["search_query"] == ""  # plain speech needs no retrieval


def test_garbage_in_fix_searches_for_the_concept():
    embed = RecordingEmbed()
    graph = _graph(_deps(lambda m: GOOD, embed=embed), MaieuticParams(similarity_floor=0.5))
    _turn(graph, "I think justice is fairness.")
    state = _turn(graph, "Why?")
    assert state["search_query"] == "philosophical arguments against justice is fairness"
    assert "Why?" not in embed.texts
    assert embed.texts[-1] == "philosophical arguments against justice is fairness"
    assert [d["id"] for d in state["turn_documents"]] == ["rep_331c"]
    assert state["retrievals"][-1]["hits"] == 1


def test_similarity_floor_discards_weak_passages():
    graph = _graph(_deps(lambda m: GOOD), MaieuticParams(similarity_floor=0.9999))
    state = _turn(graph, "I think justice is fairness.")
    assert state["turn_documents"] == [] and state["retrievals"][-1]["best_similarity"] < 0.9999


@pytest.mark.parametrize("at_cap", ["release", "fallback"])
def test_critic_cap_ends_the_loop_and_is_recorded(at_cap):
    bad = "Much context. More context. Even more. Still more. And more."
    calls: list = []
    params = MaieuticParams(critic_cap=3, at_cap=at_cap, similarity_floor=-1.0)
    graph = _graph(_deps(lambda m: bad, calls=calls), params)
    state = _turn(graph, "I think justice is fairness.")
    assert len(calls) == 3  # one draft per failure, no endless loop
    entry = state["turn_log"][-1]
    assert entry["cap_reached"] and entry["critic_loops"] == 3
    assert entry["failed/too_long"] == 3 and entry["failed/no_question"] == 3 and entry["failed/no_citation"] == 3
    assert "Corrective instruction: Too long. Cut to 1 sentence." in calls[1][-1].content
    delivered = str(state["messages"][-1].content)
    assert (delivered == bad) == (at_cap == "release")
    assert entry["delivered_ok"] is False and entry["fallback"] == (at_cap == "fallback")
    log = state["critic_log"][-1]
    assert [(d["draft"], d["loops"], d["sent_back"], d["verdict"]) for d in log["drafts"]] == [
        (1, 1, True, "revise"),
        (2, 2, True, "revise"),
        (3, 3, False, "cap"),
    ]
    assert all(
        d["checks"] == {"too_long": "failed", "no_question": "failed", "no_citation": "failed"} for d in log["drafts"]
    )
    assert log["turn"] == 1 and log["documents"] == ["rep_331c", "rep_514a"]
    plain = "passed" if at_cap == "fallback" else "failed"  # the fallback question is short and ends with "?"
    assert log["delivered"] == {
        "fallback": at_cap == "fallback",
        "checks": {"too_long": plain, "no_question": plain, "no_citation": "failed"},
    }


def test_redraft_that_complies_passes_and_counts_loops():
    drafts = iter(["No question here.", GOOD])
    graph = _graph(_deps(lambda m: next(drafts)), MaieuticParams(similarity_floor=0.5))
    state = _turn(graph, "I think justice is fairness.")
    entry = state["turn_log"][-1]
    assert entry["critic_loops"] == 1 and not entry["first_draft_ok"] and entry["delivered_ok"]
    assert not entry["cap_reached"] and str(state["messages"][-1].content) == GOOD
    drafts = state["critic_log"][-1]["drafts"]
    assert [(d["text"], d["verdict"], d["sent_back"]) for d in drafts] == [
        ("No question here.", "revise", True),
        (GOOD, "pass", False),
    ]
    assert drafts[0]["checks"] == {"too_long": "passed", "no_question": "failed", "no_citation": "failed"}


def test_scripted_sophia_heeds_cut_to_one_sentence():
    from dialectica.graphs.maieutic import critic
    from dialectica.graphs.maieutic.prompts import interlocutor_prompt

    sophia = ScriptedSophia(__import__("random").Random(0), discipline=0.0, compliance=1.0)
    doc = {**PASSAGES[0], "similarity": 0.8}
    for move in ("EXAMINE", "CHALLENGE", "CONCEDE", "ELICIT"):
        docs = [doc] if move in ("EXAMINE", "CHALLENGE") else []
        prompt = interlocutor_prompt(
            move=move,
            thesis="justice is fairness",
            documents=docs,
            feedback=critic.instruction(list(critic.CHECKS)),
            limit=3,
            history=[],
        )
        reply = sophia.interlocutor(prompt)
        assert critic.sentence_count(reply) == 1 and critic.failed_checks(reply, bool(docs), 4) == [], reply


@pytest.mark.parametrize(
    ("lines", "ending"),
    [
        (["I think justice is fairness.", "I don't know."], "gave_up"),  # before three of Sophia's turns
        (
            [
                "I think justice is fairness.",
                "I still think justice is fairness.",
                "I think justice is fairness.",
                "Honestly, I'm lost.",
            ],
            "aporia",
        ),
        (
            [
                "I think justice is fairness.",
                "I think justice is giving each their due.",
                "I think justice is harmony.",
                "Yes, I am convinced now that justice is harmony.",
            ],
            "synthesis",
        ),
    ],
)
def test_dialogue_loop_ends_in_synthesis_aporia_or_giving_up(lines, ending):
    params = MaieuticParams(max_turns=6, similarity_floor=0.5)
    final = play(
        build_maieutic(),
        Episode(_deps(lambda m: GOOD, learner_lines=lines), params),
        {"topic": "justice"},
        {"recursion_limit": 20},
    )
    result = outcome(final, params)
    assert result.termination == ending and result.metrics["rounds"] == len(lines)
    assert final["synthesis"].startswith("We began") and not final["synthesis"].rstrip().endswith("?")


def test_dialogue_loop_stops_at_max_turns():
    params = MaieuticParams(max_turns=4, similarity_floor=0.5)

    deps = _deps(lambda m: GOOD, learner_lines=["I think justice is fairness."] * 4)
    final = play(build_maieutic(), Episode(deps, params), {"topic": "justice"}, {"recursion_limit": 20})
    result = outcome(final, params)
    assert result.termination is TerminationReason.MAX_TURNS and result.metrics["rounds"] == 4


def test_the_learner_remembers_the_dialogue_and_its_prompt_only_grows():
    """Each learner prompt extends the last one (the prefix cache serves it) and holds every turn said so far."""
    params = MaieuticParams(max_turns=4, similarity_floor=0.5)
    lines = iter(["I think justice is fairness.", "", "I think justice is harmony.", "I think justice is due."])
    prompts: list[list] = []

    def learner(messages):
        prompts.append([(m.type, m.content) for m in messages])
        return next(lines)

    deps = replace(_deps(lambda m: GOOD), learner=ScriptedChatModel(policy=learner))
    final = play(build_maieutic(), Episode(deps, params), {"topic": "justice"}, {"recursion_limit": 20})
    assert len(prompts) == 4
    for before, after in itertools.pairwise(prompts):
        assert after[: len(before)] == before and len(after) == len(before) + 2
    said = [c for t, c in prompts[-1] if t == "ai"]
    assert said == ["I think justice is fairness.", "", "I think justice is harmony."]
    sophia = [str(m.content) for m in final["messages"] if m.type == "ai"][:3]
    assert [c for t, c in prompts[-1] if t == "human"][1:] == [f"Sophia said: {s}\nYour reply:" for s in sophia]


def test_circling_three_times_synthesizes():
    params = MaieuticParams(similarity_floor=0.5)
    graph = _graph(_deps(lambda m: GOOD), params)
    moves = []
    for text in [
        "I think justice is fairness.",
        "I think justice is harmony of the soul.",
        "Maybe I was right at first: justice is fairness.",
        "I think justice is harmony of the soul.",
        "Maybe I was right at first: justice is fairness.",
    ]:
        moves.append(_turn(graph, text)["socratic_move"])
    assert moves == ["EXAMINE", "EXAMINE", "CHALLENGE", "CHALLENGE", "SYNTHESIZE"]


def test_scripted_learner_reads_the_tutor_and_revises_after_grounded_questions():
    import random

    from dialectica.graphs.maieutic.prompts import learner_prompt
    from dialectica.graphs.maieutic.scripted import ScriptedLearner

    topic = {
        "opening": "justice is paying debts",
        "revisions": ["justice is harmony", "justice is fairness"],
        "rejoinder": "debts can harm",
    }
    persona = {
        "openness": 1.0,
        "patience": 1.0,
        "fatigue_rate": 0.0,
        "defensiveness": 0.0,
        "terseness": 0.0,
        "circling": 0.0,
        "give_up": 0.0,
    }
    learner = ScriptedLearner(topic, persona, random.Random(0), rejoined=True)
    assert (
        learner.reply(learner_prompt(question="What is justice?", character="", dialogue=()))
        == "I think justice is paying debts."
    )
    reply = learner.reply(learner_prompt(question="q", character="", dialogue=[("I think so.", GOOD)]))
    assert reply.endswith("I think justice is harmony.")
    ungrounded = ScriptedLearner(topic, persona | {"openness": 0.0}, random.Random(0), rejoined=True)
    ungrounded.reply(learner_prompt(question="q", character="", dialogue=()))
    reply = ungrounded.reply(learner_prompt(question="q", character="", dialogue=[("I think so.", GOOD)]))
    assert reply.endswith("I still think justice is paying debts.")


def test_scripted_learner_is_not_a_fixed_script():
    """The same persona against the same tutor ends differently with another seed: every step is a seeded draw."""
    import random

    from dialectica.graphs.maieutic.prompts import learner_prompt
    from dialectica.graphs.maieutic.scripted import ScriptedLearner

    topic = {
        "opening": "justice is paying debts",
        "revisions": ["justice is harmony", "justice is fairness"],
        "rejoinder": "debts can harm",
    }
    persona = {
        "openness": 0.5,
        "patience": 0.5,
        "fatigue_rate": 0.1,
        "defensiveness": 0.3,
        "terseness": 0.2,
        "circling": 0.2,
        "give_up": 0.05,
    }
    challenge = "You hold that justice is paying debts. But can you think of a case where it fails?"

    def dialogue(seed: int) -> tuple[str, ...]:
        learner = ScriptedLearner(topic, persona, random.Random(seed))
        said = [learner.reply(learner_prompt(question="q", character="", dialogue=()))]
        while len(said) < 12 and "know" not in said[-1]:
            said.append(learner.reply(learner_prompt(question="q", character="", dialogue=[(said[-1], challenge)])))
        return tuple(said)

    endings = {dialogue(seed) for seed in range(12)}
    assert len(endings) >= 8
    assert len({len(d) for d in endings}) > 1  # some give up sooner than others
    assert dialogue(3) == dialogue(3)  # and a seed replays
