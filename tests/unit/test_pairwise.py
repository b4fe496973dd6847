"""``dialectica pairwise``: pairs by seed and scenario, orders drawn per pair, win rate, sign test, position bias."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.graph import START, MessagesState, StateGraph

import dialectica
from dialectica.sim.analysis.pairwise import pairwise
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.main import dispatch


class Reader(BaseChatModel):
    """Prefers the conversation where a ticket was given; ``first_always`` reads only the order."""

    first_always: bool = False

    @property
    def _llm_type(self) -> str:
        return "reader"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        text = str(messages[-1].content)
        first, second = (re.search(f"<{t}>(.*?)</{t}>", text, re.S).group(1) for t in ("first", "second"))  # type: ignore[union-attr]
        if self.first_always:
            better = "first"
        else:
            better = {(True, False): "first", (False, True): "second"}.get(
                ("your ticket" in first, "your ticket" in second), "tie"
            )
        reply = json.dumps({"reason": f"{better} gave a ticket", "better": better})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])


def desk(helpful: bool) -> Any:
    def clerk(state: MessagesState) -> dict[str, Any]:
        asked = str(state["messages"][-1].content)
        give = helpful or "urgent" in asked
        return {"messages": [AIMessage("Here is your ticket." if give else "Please wait.")]}

    builder = StateGraph(MessagesState)
    builder.add_node("clerk", clerk)
    builder.add_edge(START, "clerk")
    return builder.compile()


SCENARIOS = [{"name": "calm", "turns": ["a ticket please"]}, {"name": "urgent", "turns": ["urgent ticket"]}]


@pytest.fixture
def runs(tmp_path):
    for name, helpful in (("a", False), ("b", True)):
        dialectica.evaluate(desk(helpful), name="desk", scenarios=SCENARIOS, episodes=20, seed=0, tracking="none",
                            progress=False, out_dir=tmp_path / name)  # fmt: skip
    return tmp_path / "a", tmp_path / "b"


def test_the_better_run_wins_and_ties_count_half(runs):
    (result,) = pairwise(*runs, model=Reader())
    assert result.pairs == 20 and len(result.comparisons) == 20
    assert result.wins_b == 10 and result.ties == 10 and result.wins_a == 0  # urgent visitors got a ticket from both
    assert result.win_rate_b == pytest.approx(0.75)
    assert result.ci95[0] < 0.75 < result.ci95[1] and result.sign_p < 0.01
    firsts = {c.first for c in result.comparisons}
    assert firsts == {"a", "b"}  # the order is drawn per pair: each run is sometimes shown first
    assert pairwise(*runs, model=Reader())[0].comparisons == result.comparisons  # the same seed, the same orders
    saved = json.loads((runs[1] / "pairwise.json").read_text())
    assert saved["graphs"][0]["wins_b"] == 10


def test_both_orders_expose_a_judge_that_reads_the_order(runs):
    (result,) = pairwise(*runs, model=Reader(first_always=True), both_orders=True)
    assert len(result.comparisons) == 40
    shown = {}
    for c in result.comparisons:
        shown.setdefault((c.seed, c.scenario), set()).add(c.first)
    assert all(orders == {"a", "b"} for orders in shown.values())  # every pair seen in both orders
    assert result.first_picked == 1.0 and result.position_p < 1e-6 and result.win_rate_b == pytest.approx(0.5)
    assert result.sign_p != result.sign_p  # every pair a tie on average: no decided pair (nan), not 40 judgments


def test_judging_both_ways_does_not_double_the_sign_tests_evidence(runs):
    once, twice = pairwise(*runs, model=Reader()), pairwise(*runs, model=Reader(), both_orders=True)
    assert twice[0].wins_b == 2 * once[0].wins_b and twice[0].win_rate_b == once[0].win_rate_b
    assert twice[0].sign_p == once[0].sign_p  # the same 10 decided pairs, each counted once


def test_the_judge_reads_a_built_in_graphs_speakers():
    from dialectica.sim.analysis.pairwise import transcript

    record = {"transcript": [{"role": "system", "speaker": "moderator", "text": "Opening."},
                             {"role": "participant", "speaker": "expert_a", "text": "I hold X."}]}  # fmt: skip
    assert transcript(record) == "moderator: Opening.\nexpert_a: I hold X."


def test_runs_that_share_no_episode_are_one_line(tmp_path, runs, capsys):
    dialectica.evaluate(desk(True), name="desk", scenarios=SCENARIOS, episodes=4, seed=9, tracking="none",
                        progress=False, out_dir=tmp_path / "other")  # fmt: skip
    with pytest.raises(ConfigError, match="no episode of .* has a counterpart"):
        pairwise(runs[0], tmp_path / "other", model=Reader())
    assert dispatch("pairwise", [str(tmp_path / "nowhere"), str(runs[1])]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert dispatch("pairwise", [str(runs[0]), str(runs[1]), "llm=scripted"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "llm=scripted: the judge here must be a model; valid: llm=llamacpp" in line


class Mumbler(BaseChatModel):
    """Replies prose, never a verdict, except on every ``every``-th call (then a verdict for the second shown)."""

    every: int = 0
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "mumbler"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        self.calls += 1
        verdict = self.every and self.calls % self.every == 0
        reply = json.dumps({"reason": "r", "better": "second"}) if verdict else "The second one is clearly better."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])


def test_replies_that_are_not_verdicts_are_left_out_not_counted_as_ties(runs, caplog):
    (none_read,) = pairwise(*runs, model=Mumbler())
    assert none_read.unread == 20 and none_read.ties == 0 and none_read.wins_a == none_read.wins_b == 0
    assert none_read.win_rate_b != none_read.win_rate_b and none_read.ci95[0] != none_read.ci95[0]  # nan: no evidence
    assert "20 of 20 judgments were not a verdict" in caplog.text
    (some_read,) = pairwise(*runs, model=Mumbler(every=4))
    assert some_read.unread == 15 and some_read.wins_b + some_read.wins_a == 5 and some_read.ties == 0
    assert some_read.win_rate_b == some_read.wins_b / 5  # the 5 read judgments only


def test_the_file_says_which_runs_judge_and_settings_it_holds(runs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pairwise("a", "b", model=Reader(), both_orders=True, seed=3)
    saved = json.loads((runs[1] / "pairwise.json").read_text())
    assert saved["run_a"] == str(runs[0].resolve()) and saved["run_b"] == str(runs[1].resolve())
    assert (saved["judge"], saved["both_orders"], saved["seed"]) == ("Reader", True, 3)


def test_a_run_against_itself_and_partial_overlap(runs, tmp_path):
    with pytest.raises(ConfigError, match="are the same run"):
        pairwise(runs[1], runs[1] / ".", model=Reader())
    dialectica.evaluate(desk(True), name="desk", scenarios=SCENARIOS, episodes=4, seed=0, tracking="none",
                        progress=False, out_dir=tmp_path / "four")  # fmt: skip
    (result,) = pairwise(runs[0], tmp_path / "four", model=Reader())
    assert result.pairs == 4 and result.unpaired == 16  # A's other 16 episodes have no counterpart


def test_refusals_come_before_a_judge_is_built(runs, tmp_path, monkeypatch, capsys):
    import dialectica.sim.analysis.pairwise as module

    monkeypatch.setattr(module, "chat_model", lambda *a, **k: pytest.fail("a judge was built for runs that do not pair"))
    dialectica.evaluate(desk(True), name="desk", scenarios=SCENARIOS, episodes=4, seed=9, tracking="none",
                        progress=False, out_dir=tmp_path / "other")  # fmt: skip
    with pytest.raises(ConfigError, match="no episode of .* has a counterpart"):
        pairwise(runs[0], tmp_path / "other")
    with pytest.raises(SystemExit) as exit_:
        dispatch("pairwise", [str(runs[0])])
    assert exit_.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "required: run_b" in line and "overrides" not in line
