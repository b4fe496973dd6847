"""The episode bar counts the model's calls as they end, from every episode in flight, and not the calls the call
cache answered."""

from __future__ import annotations

import io
import random
import threading
from uuid import uuid4

from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from tqdm import tqdm

from dialectica.sim.authoring.faulty import FaultyChatModel
from dialectica.sim.authoring.scripted import ScriptedChatModel
from dialectica.sim.authoring.speakers import PARTICIPANT
from dialectica.sim.engine.progress import EpisodeBar, LineLog, bar


def _ended(meta: dict | None) -> LLMResult:
    message = AIMessage(content="reply", response_metadata={"dialectica": meta} if meta is not None else {})
    return LLMResult(generations=[[ChatGeneration(message=message)]])


def _bar() -> EpisodeBar:
    return EpisodeBar(tqdm(total=4, file=io.StringIO(), disable=False))


def test_the_model_calls_are_counted_and_cache_answers_are_not():
    bar = _bar()
    bar.show(converged="0%", errors=0)
    assert bar.bar.postfix == "converged=0%, errors=0"  # no model call yet: nothing about calls
    bar.on_llm_end(_ended({"cache_hit": False}), run_id=uuid4())
    bar.on_llm_end(_ended({"cache_hit": True}), run_id=uuid4())
    bar.on_llm_end(_ended(None), run_id=uuid4())  # a graph's own model, used as it is: no cache of ours
    assert bar.bar.postfix == "converged=0%, errors=0, model_calls=2"
    bar.show(converged="50%")
    assert bar.bar.postfix == "converged=50%, errors=0, model_calls=2"


def test_calls_ending_in_several_episodes_at_once_are_all_counted():
    bar = _bar()

    def episode() -> None:
        for _ in range(200):
            bar.on_llm_end(_ended({"cache_hit": False}), run_id=uuid4())

    threads = [threading.Thread(target=episode) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bar.model_calls == 800 and bar.bar.postfix == "model_calls=800"


def test_a_scripted_participant_s_replies_are_not_model_calls():
    bar = _bar()
    scripted = ScriptedChatModel(policy=lambda messages: "I agree.", role="member")
    faulty = FaultyChatModel(inner=scripted, rate=0.0, draws=random.Random(0), speaker="member", kind=PARTICIPANT)
    for model in (scripted, faulty):
        assert model.invoke("Vote?", config={"callbacks": [bar]}).content == "I agree."
    assert bar.model_calls == 0 and not bar._scripted
    model_ran = GenericFakeChatModel(messages=iter([AIMessage(content="yes")]))  # a graph's own model
    model_ran.invoke("Vote?", config={"callbacks": [bar]})
    assert bar.model_calls == 1


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_redirected_bar_writes_whole_lines_at_most_every_interval_and_its_last_state():
    out, clock = io.StringIO(), Clock()
    shown = tqdm(total=10, desc="committee", unit="ep", file=LineLog(out, every=30.0, clock=clock), mininterval=0)
    for step in range(10):
        clock.now = step * 10.0  # an episode every 10 s: a line at 0, 30, 60 and 90 s
        shown.update(1)
        shown.set_postfix(converged="50%")
    shown.close()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert all(line.startswith("committee:") for line in lines)
    assert 3 <= len(lines) <= 6  # throttled: not one line per redraw (there were over 20)
    assert "10/10" in lines[-1]  # the state it ended in


def test_on_a_terminal_the_bar_redraws_in_place():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    shown = bar("run", 3, "ep", stream=out)
    for _ in range(3):
        shown.update(1)
    shown.close()
    assert "\r" in out.getvalue()


def test_a_bar_to_a_file_is_lines():
    out = io.StringIO()
    shown = bar("run", 3, "ep", stream=out)
    for _ in range(3):
        shown.update(1)
    shown.close()
    assert "\r" not in out.getvalue() and out.getvalue().splitlines()[-1].startswith("run: 100%")
