"""Graphs used as they are (``dialectica.evaluate``): LangGraph graphs written without Dialectica in mind."""

from __future__ import annotations

import dataclasses
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import mlflow
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt

import dialectica
from dialectica import LLMJudge, LLMUser, Verdict
from dialectica.sim.adapter.judges import RuleJudge
from dialectica.sim.authoring.params import ConfigError


class EchoModel(BaseChatModel):
    """A stand-in for the graph's own chat model: answers by rule, counts as a model call."""

    @property
    def _llm_type(self) -> str:
        return "echo"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        last = str(messages[-1].content).lower()
        text = (
            "Which order number?"
            if "refund" in last
            else ("Refund issued." if any(c.isdigit() for c in last) else "How can I help?")
        )
        message = AIMessage(text, usage_metadata={"input_tokens": 5, "output_tokens": 3, "total_tokens": 8})
        return ChatResult(generations=[ChatGeneration(message=message)])


@dataclass
class ShopContext:
    """The graph's own runtime context (LangGraph's react-agent style): knobs with plain defaults."""

    refunds_open: bool = True
    closing: str = "Anything else?"


MODEL = EchoModel()


def agent(state: MessagesState, runtime: Runtime[ShopContext]) -> dict[str, Any]:
    if not runtime.context.refunds_open and "refund" in str(state["messages"][-1].content).lower():
        return {"messages": [AIMessage("Refunds are closed today.")]}
    reply = MODEL.invoke(state["messages"])
    return {"messages": [reply]}


def one_node(node: Any, state: Any = MessagesState, context: Any = None) -> Any:
    """A graph of one node, compiled as a LangGraph tutorial would."""
    builder = StateGraph(state, context_schema=context)
    builder.add_node(node.__name__, node)
    builder.add_edge(START, node.__name__)
    builder.add_edge(node.__name__, END)
    return builder.compile()


SHOP = one_node(agent, context=ShopContext)
SCENARIOS = [{"name": "refund", "order": "1234"}, {"name": "forgetful", "order": "77", "forgets": 0.5}]


def customer(messages: list[BaseMessage], scenario: dict[str, Any], rng: random.Random) -> str | None:
    asked = sum(m.type == "human" for m in messages)
    if asked == 0:
        return "I want a refund"
    if "order number" in str(messages[-1].content) and asked < 3:
        return "I forgot it" if rng.random() < scenario.get("forgets", 0) else f"It is {scenario['order']}"
    return None


def refunded(messages: list[BaseMessage], scenario: dict[str, Any]) -> Verdict:
    done = any(m.type == "ai" and "Refund issued" in str(m.content) for m in messages)
    return Verdict(done, "the shop issued a refund" if done else "no refund")


def _run(tmp_path: Path, name: str = "run", **kw: Any) -> dialectica.Evaluation:
    args: dict[str, Any] = {
        "scenarios": SCENARIOS,
        "user": customer,
        "judge": refunded,
        "episodes": 8,
        "seed": 3,
        "tracking": "none",
        "progress": False,
        "out_dir": tmp_path / name,
    } | kw
    return dialectica.evaluate(args.pop("app", SHOP), **args)


def _records(run: dialectica.Evaluation) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run.run_dir / "episodes.jsonl").read_text().splitlines()]


def test_a_graph_with_its_own_context_and_model_runs_as_it_is(tmp_path: Path):
    run = _run(tmp_path)
    records = _records(run)
    assert {r["scenario"] for r in records} == {"refund", "forgetful"}
    assert all(r["termination_reason"] == "converged" for r in records if r["scenario"] == "refund")
    assert run.metrics["scenario/refund/convergence_rate"] == 1.0
    first = records[0]
    assert [t["role"] for t in first["transcript"]] == ["user", "assistant", "user", "assistant"]
    assert first["artifacts"]["judge"] == "the shop issued a refund"
    assert first["usage"]["llm_calls"] == 2 and first["timings"]["node_seconds"]["agent"]  # its own model, metered
    assert (run.run_dir / "summary.json").exists() and (run.run_dir / run.name / "view" / "index.html").exists()
    assert run.name.endswith("test_adapter.SHOP")  # where the graph lives: it set no name of its own
    assert list(run.episodes["episode"]) == list(range(8))


def test_a_context_field_is_a_knob(tmp_path: Path):
    store = f"sqlite:///{tmp_path / 'ml.db'}"
    closed = _run(tmp_path, params={"refunds_open": False}, tracking=store)
    assert closed.metrics["convergence_rate"] == 0.0 < _run(tmp_path, "open").metrics["convergence_rate"]
    named = mlflow.MlflowClient(store).get_run(closed.mlflow_run_id).info.run_name
    assert named == f"{closed.name} refunds_open=False"  # two evaluations of one graph tell apart in MLflow
    with pytest.raises(
        ConfigError,
        match=r"graph.refund_open \(did you mean graph.refunds_open\?\); the graph.s own knobs: closing, refunds_open; the",
    ):
        _run(tmp_path, "typo", params={"refund_open": False})
    assert not (tmp_path / "typo").exists()  # nothing half-written is left behind


def test_same_seed_same_records_and_other_seeds_other_endings(tmp_path: Path):
    def without_timings(run: dialectica.Evaluation) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k != "timings"} for r in _records(run)]

    assert without_timings(_run(tmp_path, "a")) == without_timings(_run(tmp_path, "b"))
    endings = {
        tuple(r["termination_reason"] for r in _records(_run(tmp_path, f"s{seed}", seed=seed, episodes=12)))
        for seed in range(3)
    }
    assert len(endings) > 1  # the forgetful customer draws differently per seed


def test_a_graph_that_asks_with_interrupt_gets_the_users_replies(tmp_path: Path):
    class Survey(TypedDict, total=False):
        topic: str
        answers: list[str]

    def ask(state: Survey) -> dict[str, Any]:
        answers = list(state.get("answers") or [])
        while len(answers) < 2:
            answers.append(interrupt({"question": f"What do you think of {state['topic']}? ({len(answers) + 1})"}))
        return {"answers": answers}

    graph = one_node(ask, Survey)  # no checkpointer: the harness brings one

    def answers(messages: list[BaseMessage], scenario: dict[str, Any], rng: random.Random) -> str:
        return f"{scenario['input']['topic']} is fine, answer {sum(m.type == 'human' for m in messages) + 1}"

    def two_answers(messages: list[BaseMessage], scenario: dict[str, Any], state: dict[str, Any]) -> bool:
        return state.get("answers") == ["tea is fine, answer 1", "tea is fine, answer 2"]

    run = dialectica.evaluate(
        graph,
        name="survey",
        scenarios=[{"name": "tea", "input": {"topic": "tea"}}],
        user=answers,
        judge=two_answers,
        episodes=2,
        tracking="none",
        progress=False,
        out_dir=tmp_path / "survey",
    )
    record = _records(run)[0]
    assert run.metrics["convergence_rate"] == 1.0 and record["metrics"]["rounds"] == 2
    assert record["transcript"][0] == {
        "round": 0,
        "role": "assistant",
        "speaker": "interrupt",
        "text": "What do you think of tea? (1)",
    }


def test_declared_endings_are_recorded_counted_and_explained(tmp_path: Path):
    def gave_up(messages: list[BaseMessage], scenario: dict[str, Any]) -> Verdict:
        forgot = any("forgot" in str(m.content) for m in messages if m.type == "human")
        if forgot:
            return Verdict(False, "the customer could not find the order", ending="gave_up")
        verdict = refunded(messages, scenario)  # a refund is recorded as its own ending, and still converged
        return Verdict(verdict.passed, verdict.reason, ending="refunded" if verdict.passed else None)

    run = _run(
        tmp_path, judge=gave_up, endings={"gave_up": "The customer gave up", "refunded": "Refunded"}, episodes=12, seed=0
    )
    reasons = [r["termination_reason"] for r in _records(run)]
    assert "gave_up" in reasons and run.metrics["termination/gave_up"] == reasons.count("gave_up") / 12
    assert "refunded" in reasons and [r["converged"] for r in _records(run)] == [x == "refunded" for x in reasons]
    assert run.metrics["convergence_rate"] == reasons.count("refunded") / 12  # the verdict decides convergence
    page = next((run.run_dir / run.name / "view").glob("episode_*.html")).read_text()
    assert any(meaning in page for meaning in ("The judge found", "The customer gave up", "Refunded"))
    bad = _run(tmp_path, "undeclared", judge=gave_up, episodes=12, seed=0, overrides=["max_error_rate=1"])
    errors = [r for r in _records(bad) if r["termination_reason"] == "error"]
    assert any("'gave_up', which it does not declare; declared: converged, user_stopped" in e["error"] for e in errors)


def test_fixed_turns_and_no_judge(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    scenarios = [{"name": "short", "turns": ["hi"]}, {"name": "long", "turns": ["hi", "refund", "1", "2"]}]
    run = dialectica.evaluate(
        SHOP, scenarios=scenarios, episodes=2, max_turns=3, tracking="none", progress=False, out_dir=tmp_path / "turns"
    )
    assert [r["termination_reason"] for r in _records(run)] == ["user_stopped", "max_turns"]
    assert run.metrics["convergence_rate"] == 0.0  # without a judge nothing converges
    assert "has no judge, so no episode converges" in caplog.text  # and the researcher is told so


def test_a_run_with_a_judge_says_nothing_about_judges(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    _run(tmp_path, "judged", judge=lambda messages, scenario: True)
    assert "no judge" not in caplog.text


class ScriptModel(BaseChatModel):
    """A researcher's own chat model for the user or the judge (replies from a list, in order)."""

    replies: list[str]

    @property
    def _llm_type(self) -> str:
        return "script"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        text = self.replies.pop(0) if self.replies else "<END>"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])


def test_an_llm_user_and_an_llm_judge_on_models_passed_in(tmp_path: Path):
    user = LLMUser(
        persona="a customer who wants a refund",
        model=ScriptModel(replies=["It is 42", "<END>"]),
        opening=["I want a refund"],
    )
    judge = LLMJudge(
        rubric="a refund was issued", model=ScriptModel(replies=['Here: {"reason": "refund issued", "passed": true}'])
    )
    run = dialectica.evaluate(
        SHOP,
        scenarios=[{"name": "s"}],
        user=user,
        judge=judge,
        episodes=1,
        tracking="none",
        progress=False,
        out_dir=tmp_path / "llm",
    )
    record = _records(run)[0]
    assert [t["text"] for t in record["transcript"] if t["role"] == "user"] == ["I want a refund", "It is 42"]
    assert record["termination_reason"] == "converged" and record["artifacts"]["judge"] == "refund issued"
    assert record["participants"] == "surrogate"


def test_an_llm_judge_without_a_model_needs_one_before_anything_runs(tmp_path: Path):
    with pytest.raises(ConfigError, match="the judge needs a model: add llm=llamacpp or llm=openai"):
        _run(tmp_path, "nojudge", judge=LLMJudge(rubric="x"), llm="scripted")
    assert not (tmp_path / "nojudge").exists()


def test_a_malformed_scenario_is_one_line_naming_the_key(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"^scenarios given to evaluate\(\), scenario 1: key 'turns' is reserved") as err:
        _run(tmp_path, "bad", scenarios=[{"name": "x", "turns": "hello"}])
    assert "expected a list of strings" in str(err.value) and "\n" not in str(err.value)
    assert "scenarios.yaml" not in str(err.value)  # the copy a run would keep was never made
    assert not (tmp_path / "bad").exists()


def test_a_users_own_key_that_the_harness_reserves_says_so_and_lists_the_others(tmp_path: Path):
    with pytest.raises(ConfigError) as err:
        _run(tmp_path, "mine", scenarios=[{"name": "x", "opening": {"greeting": "hi"}}])
    message = str(err.value)
    assert "key 'opening' is reserved by the harness (an LLM user's fixed first lines" in message
    assert "The reserved keys: name, turns, opening, persona, instructions, stop, rubric, input" in message
    assert "name a key of your own otherwise" in message


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [("expectations", ["a", "b"], "expected a mapping"), ("reference_outputs", None, "any value but null")],
)
def test_what_evaluators_compare_with_is_checked_like_the_other_reserved_keys(tmp_path, key, value, expected):
    with pytest.raises(ConfigError, match=rf"key '{key}' is reserved by the harness") as err:
        _run(tmp_path, "evalkeys", scenarios=[{"name": "x", "turns": ["hi"], key: value}])
    assert expected in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "evalkeys").exists()


def test_a_factory_builds_the_graph_once_per_knob_value(tmp_path: Path):
    built: list[int] = []

    def make(replies: int = 1) -> Any:
        built.append(replies)

        def bot(state: MessagesState) -> dict[str, Any]:
            return {"messages": [AIMessage(f"reply {i}") for i in range(replies)]}

        return one_node(bot)

    def enough(messages: list[BaseMessage], scenario: dict[str, Any]) -> bool:
        return sum(m.type == "ai" for m in messages) >= 4

    scenarios = [{"name": "s", "turns": ["a", "b"]}]
    one = dialectica.evaluate(
        make, scenarios=scenarios, judge=enough, episodes=3, tracking="none", progress=False, out_dir=tmp_path / "one"
    )
    two = dialectica.evaluate(
        make,
        scenarios=scenarios,
        judge=enough,
        params={"replies": 2},
        episodes=3,
        tracking="none",
        progress=False,
        out_dir=tmp_path / "two",
    )
    assert one.metrics["convergence_rate"] == 0.0 and two.metrics["convergence_rate"] == 1.0
    assert built == [1, 1, 2]  # per evaluate: the defaults once (its context schema), each other value once; not per episode


def test_a_fork_after_a_turn_may_change_a_context_knob_but_not_one_that_builds_the_graph():
    from dialectica.sim.adapter.app import App
    from dialectica.sim.config.fork import _same_graph

    def make(replies: int = 1) -> Any:
        return SHOP

    params = App(make, "shop").params_class()
    before = params()
    _same_graph("shop", before, dataclasses.replace(before, max_turns=3))  # not a graph knob: allowed
    with pytest.raises(ConfigError, match=r"graph.replies builds shop's graph, so a fork after a turn cannot change it"):
        _same_graph("shop", before, dataclasses.replace(before, replies=2))


def test_a_fork_after_a_turn_refuses_a_knob_the_graph_copies_into_its_starting_state():
    from types import SimpleNamespace

    from dialectica.sim.config.fork import _same_start

    @dataclasses.dataclass(frozen=True)
    class Knobs:
        budget: float = 10.0
        threshold: float = 0.5

    spec = SimpleNamespace(name="copier", initial_state=lambda scenario, p: {"topic": scenario["name"], "left": p.budget})
    _same_start(SimpleNamespace(spec=spec, scenarios=[{"name": "a"}], params=Knobs(threshold=0.9)), Knobs())  # read later
    with pytest.raises(ConfigError, match=r"copier's starting state holds left, .* valid: from_turn=0"):
        _same_start(SimpleNamespace(spec=spec, scenarios=[{"name": "a"}], params=Knobs(budget=6.0)), Knobs())
    noisy = SimpleNamespace(name="noisy", initial_state=lambda scenario, p: {"id": random.random(), "left": p.budget})
    _same_start(SimpleNamespace(spec=noisy, scenarios=[{"name": "a"}], params=Knobs()), Knobs())  # no knob changed
    with pytest.raises(ConfigError, match=r"noisy's starting state holds left,"):  # the id differs every time: not named
        _same_start(SimpleNamespace(spec=noisy, scenarios=[{"name": "a"}], params=Knobs(budget=6.0)), Knobs())


def test_a_path_inside_a_package_imports_as_the_packages_module(tmp_path: Path):
    from dialectica.sim.adapter.strings import import_object
    from dialectica.sim.config.discovery import display_name

    package = tmp_path / "src" / "pathpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from pathpkg.parts import ANSWER\n")  # an absolute import, as packages do
    (package / "parts.py").write_text("ANSWER = 42\n")
    for where in (package / "__init__.py", package, package / "parts.py"):
        assert import_object(f"{where}:ANSWER") == 42
    assert display_name(f"{package / '__init__.py'}:ANSWER") == "pathpkg.ANSWER"
    assert display_name(f"{package / 'parts.py'}:ANSWER") == "pathpkg.parts.ANSWER"
    copy = tmp_path / "elsewhere" / "pathpkg"  # another copy of the same package, after the first was imported
    copy.mkdir(parents=True)
    (copy / "__init__.py").write_text("ANSWER = 7\n")
    with pytest.raises(ConfigError, match=r"pathpkg is imported already from .*src/pathpkg/__init__.py, not .*elsewhere"):
        import_object(f"{copy}:ANSWER")


def test_an_import_string_names_the_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "my_shop.py").write_text("from tests.unit.test_adapter import SHOP as graph\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    run = _run(tmp_path, app="my_shop:graph", episodes=2)
    assert run.name == "my_shop.graph" and _records(run)[0]["graph"] == "my_shop.graph"
    with pytest.raises(ConfigError, match="cannot import no_such_module"):
        _run(tmp_path, app="no_such_module:graph")


class MoodyModel(BaseChatModel):
    """A graph's own model that no seed reaches (like a hosted model at temperature 1)."""

    @property
    def _llm_type(self) -> str:
        return "moody"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        mood = random.SystemRandom().choice(["Refund issued.", "No refunds today."])
        return ChatResult(generations=[ChatGeneration(message=AIMessage(mood))])


@pytest.mark.filterwarnings("error::langchain_core._api.LangChainBetaWarning")  # the harness's cache warns no one
def test_the_graphs_own_model_calls_are_cached_per_episode_seed(tmp_path: Path):
    moody = MoodyModel()

    def desk(state: MessagesState) -> dict[str, Any]:
        return {"messages": [moody.invoke(state["messages"])]}

    graph = one_node(desk)
    cache = str(tmp_path / "calls.sqlite")

    def run(name: str, seed: int) -> list[dict[str, Any]]:
        done = dialectica.evaluate(
            graph,
            scenarios=[{"name": "s", "turns": ["refund please", "please?"]}],
            judge=refunded,
            episodes=16,
            seed=seed,
            params={"cache": cache},
            tracking="none",
            progress=False,
            out_dir=tmp_path / name,
        )
        return _records(done)

    first, again, other = run("first", 0), run("again", 0), run("other", 1)
    assert [r["transcript"] for r in first] == [r["transcript"] for r in again]  # replayed, not asked anew
    assert all(r["timings"]["graph_cache_hits"] == 2 for r in again) and first[0]["timings"]["graph_cache_hits"] == 0
    assert [r["transcript"] for r in first] != [r["transcript"] for r in other]
    assert MoodyModel().invoke("outside an episode").content  # the hook answers nothing outside episodes


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"user": None}, "scenario 'refund' has no 'turns' for a scripted user"),
        ({"user": LLMUser(model=EchoModel())}, "scenario 'refund' has neither 'persona' nor 'instructions'"),
        ({"judge": LLMJudge(model=EchoModel())}, "scenario 'refund' has no 'rubric' for the LLM judge"),
        (
            {"metrics": [LLMJudge(model=EchoModel(), name="polite")]},
            "scenario 'refund' has no 'rubric' for the metric rubric/polite",
        ),
    ],
)
def test_what_the_user_or_judge_would_miss_is_said_before_anything_runs(tmp_path: Path, kw: dict[str, Any], message: str):
    with pytest.raises(ConfigError, match=message):
        _run(tmp_path, "missing", **kw)
    assert not (tmp_path / "missing").exists()


def bot_factory(model: BaseChatModel = MODEL, greeting: str = "Hi") -> Any:
    """A factory that takes the graph's model: the harness passes a role model named ``model``."""

    def bot(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    return one_node(bot)


def test_a_factorys_model_argument_is_a_role(tmp_path: Path):
    run = dialectica.evaluate(
        bot_factory,
        scenarios=SCENARIOS,
        user=customer,
        judge=refunded,
        episodes=2,
        tracking="none",
        progress=False,
        out_dir=tmp_path / "factory",
    )
    record = _records(run)[0]
    assert record["termination_reason"] == "converged"  # the default model answered
    assert record["usage"]["calls_by_role"] == {"model": 2}  # metered under its role

    def no_default(model: BaseChatModel) -> Any:
        return bot_factory(model)

    with pytest.raises(ConfigError, match="the model needs a model: add llm=llamacpp or llm=openai"):
        dialectica.evaluate(
            no_default,
            scenarios=SCENARIOS,
            user=customer,
            judge=refunded,
            episodes=1,
            tracking="none",
            progress=False,
            out_dir=tmp_path / "nodefault",
        )


def test_a_second_evaluation_into_the_same_out_dir_is_refused_and_leaves_the_first(tmp_path: Path):
    first = _run(tmp_path, "once", episodes=3)
    before = (first.run_dir / "episodes.jsonl").read_text()
    with pytest.raises(ConfigError, match=r"already holds a finished run \(3 episodes\); add resume=true"):
        _run(tmp_path, "once", episodes=2, seed=9)
    with pytest.raises(ConfigError, match="holds a run of other scenarios"):
        _run(tmp_path, "once", scenarios=[{"name": "other", "turns": ["hi"]}])
    assert (first.run_dir / "episodes.jsonl").read_text() == before
    assert _run(tmp_path, "once", episodes=3, overrides=["resume=true"]).metrics == first.metrics


def test_resume_keeps_what_a_run_finished(tmp_path: Path):
    first = _run(tmp_path, "resumed", episodes=4)
    lines = (first.run_dir / "episodes.jsonl").read_text().splitlines()
    (first.run_dir / "summary.json").unlink()  # as if killed after three episodes
    (first.run_dir / "episodes.jsonl").write_text("\n".join(lines[:3]) + "\n")
    again = _run(tmp_path, "resumed", episodes=4, overrides=["resume=true"])
    assert again.metrics == first.metrics | {k: v for k, v in again.metrics.items() if "seconds" in k}
    assert (again.run_dir / "episodes.jsonl").read_text().splitlines()[:3] == lines[:3]
    with pytest.raises(ConfigError, match="resume=true in .* made with another config: seed"):
        _run(tmp_path, "resumed", episodes=4, seed=9, overrides=["resume=true"])


def test_a_context_field_named_like_a_harness_key_keeps_its_value(tmp_path: Path):
    @dataclass
    class Named:
        user: str = "Ana"  # graph.user is the harness's (who plays the user); this field stays the graph's
        tone: str = "warm"

    def greet(state: MessagesState, runtime: Runtime[Named]) -> dict[str, Any]:
        return {"messages": [AIMessage(f"Hello {runtime.context.user}, {runtime.context.tone} regards")]}

    run = dialectica.evaluate(
        one_node(greet, context=Named),
        scenarios=[{"name": "s", "turns": ["hi"]}],
        episodes=1,
        params={"tone": "cold"},
        tracking="none",
        progress=False,
        out_dir=tmp_path / "named",
    )
    assert _records(run)[0]["transcript"][1]["text"] == "Hello Ana, cold regards"


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"user": 42}, r"user=42 is invalid; valid values: a function \(messages, scenario, rng\)"),
        ({"judge": "yes"}, r"judge='yes' is invalid; valid values: a function \(messages, scenario\[, state\]\)"),
        ({"judge": lambda transcript: True}, r"takes neither \(messages, scenario\) nor \(messages, scenario, state\)"),
        ({"judge": lambda a, b, c, d: True}, r"judge .*\(a, b, c, d\) takes neither"),
    ],
)
def test_a_user_or_judge_of_the_wrong_kind_is_refused_before_anything_runs(tmp_path: Path, kw: dict[str, Any], message: str):
    with pytest.raises(ConfigError, match=message):
        _run(tmp_path, "wrong", **kw)
    assert not (tmp_path / "wrong").exists()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("max_eror_rate=0.2", r"^unknown key max_eror_rate \(did you mean max_error_rate\?\); valid keys: .*episodes"),
        ("participants=scripte", r"^unknown participants='scripte' \(did you mean participants=scripted\?\)"),
        ("episodes=[1", r"^cannot read the command line: .*settings are key=value"),
    ],
)
def test_a_bad_override_in_python_is_the_command_lines_one_line(tmp_path: Path, override: str, message: str):
    with pytest.raises(dialectica.ConfigError, match=message) as err:
        _run(tmp_path, "typo", overrides=[override])
    assert "\n" not in str(err.value)
    assert not (tmp_path / "typo").exists()


def _raising_judge(messages: list[BaseMessage], scenario: dict[str, Any]) -> bool:
    return scenario["no such key"]


def test_evaluate_raises_past_max_error_rate_naming_the_records_and_the_first_error(tmp_path: Path):
    with pytest.raises(dialectica.EpisodesFailed) as failed:
        _run(tmp_path, "broken", judge=_raising_judge)
    message = str(failed.value)
    assert "every episode raised (error_rate 1.00 > max_error_rate 0.5)" in message
    assert "the first: KeyError: 'no such key'" in message and str(tmp_path / "broken" / "episodes.jsonl") in message
    tolerated = _run(tmp_path, "tolerated", judge=_raising_judge, overrides=["max_error_rate=1"])
    assert "8 raised (see their error fields)" in repr(tolerated)
    assert "raised" not in repr(_run(tmp_path, "fine"))


def _number_user(messages: list[BaseMessage], scenario: dict[str, Any], rng: random.Random) -> Any:
    return 7


def _maybe_judge(messages: list[BaseMessage], scenario: dict[str, Any]) -> Any:
    return "maybe"


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"user": _number_user}, ("the user function", "_number_user returned 7 (int)", "as a str, or None")),
        ({"judge": _maybe_judge}, ("the judge", "_maybe_judge returned 'maybe' (str)", "a bool, a dialectica.Verdict")),
    ],
)
def test_a_function_that_returns_the_wrong_type_is_named_in_the_record(tmp_path: Path, kw: dict[str, Any], words: tuple):
    run = _run(tmp_path, "typed", overrides=["max_error_rate=1"], **kw)
    errors = [r["error"].strip().splitlines()[-1] for r in _records(run)]
    assert all(all(w in e for w in words) for e in errors), errors[0]


def test_an_llm_judges_placeholder_reasons_are_flagged_and_counted(tmp_path: Path):
    replies = ['{"reason": "pass", "passed": true}', '{"reason": "The shop issued the refund.", "passed": true}']
    judge = LLMJudge(rubric="a refund was issued", model=ScriptModel(replies=replies * 2))
    run = _run(tmp_path, "placeholders", judge=judge, episodes=4, scenarios=[{"name": "s", "order": 7}])
    flags = [r["metrics"]["judge_empty_reason"] for r in _records(run)]
    assert flags == [1.0, 0.0, 1.0, 0.0]
    assert run.metrics["judge/empty_reasons"] == 2
    assert "judge/empty_reasons" not in _run(tmp_path, "rule").metrics  # a rule gives no reasons to flag


def _clerk(state: MessagesState) -> dict[str, Any]:
    return {"messages": [AIMessage("Refund issued.")]}  # by rule: no model


def test_only_a_graph_that_calls_a_model_leaves_a_call_cache(tmp_path: Path):
    _run(tmp_path, "modelless", app=one_node(_clerk), params={"cache": str(tmp_path / "rule.sqlite")})
    _run(tmp_path, "model", params={"cache": str(tmp_path / "model.sqlite")})  # SHOP's agent asks its chat model
    assert not (tmp_path / "rule.sqlite").exists() and (tmp_path / "model.sqlite").exists()


def _judge_strict(messages: list[BaseMessage], scenario: dict[str, Any], strict: bool = False) -> bool:
    return not strict


def _judge_state(messages: list[BaseMessage], scenario: dict[str, Any], state: Any = None) -> bool:
    return state is not None


def _judge_needs(messages: list[BaseMessage], scenario: dict[str, Any], final: Any) -> bool:
    return final is not None


def _judge_final(messages: list[BaseMessage], scenario: dict[str, Any], final: Any = None) -> bool:
    return final is not None


def _wrapped(*args: Any, **kwargs: Any) -> bool:  # a decorator's wrapper around a two-argument rule
    _messages, _scenario = args
    return True


def _judge_rest(messages: list[BaseMessage], scenario: dict[str, Any], *rest: Any) -> bool:
    return bool(rest)


@pytest.mark.parametrize(
    ("fn", "gets_state"),
    [
        (_judge_strict, False),
        (_judge_state, True),
        (_judge_needs, True),
        (_judge_final, True),
        (_wrapped, False),
        (_judge_rest, True),
    ],
)
def test_a_rule_judge_gets_the_state_only_through_a_parameter_meant_for_it(fn: Any, gets_state: bool):
    judge = RuleJudge(fn)
    assert judge.takes_state is gets_state
    assert judge.judge([], {}, {"messages": []}, cast=None).passed is True  # type: ignore[arg-type]


def test_a_user_function_of_the_wrong_arity_is_refused_before_anything_runs(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"user function .*\(messages, scenario\) does not take"):
        _run(tmp_path, "two", user=lambda messages, scenario: None)
    assert not (tmp_path / "two").exists()


def test_a_knobs_annotation_gives_its_type_and_an_inferred_integer_says_so(tmp_path: Path):
    seen: list[Any] = []

    def annotated(floor: float = 80) -> Any:
        seen.append(floor)
        return one_node(lambda state: {"messages": [AIMessage("ok")]})

    def bare(floor=80) -> Any:  # type: ignore[no-untyped-def]
        return annotated(floor)

    turns = [{"name": "s", "turns": ["a"]}]
    kw: dict[str, Any] = {"scenarios": turns, "episodes": 1, "tracking": "none", "progress": False}
    dialectica.evaluate(annotated, params={"floor": 62.5}, out_dir=tmp_path / "a", **kw)
    assert seen[-1] == 62.5
    with pytest.raises(ConfigError, match=r"floor must be an integer, got 62.5 \(an integer knob, .*`floor: float = 80`"):
        dialectica.evaluate(bare, params={"floor": 62.5}, out_dir=tmp_path / "b", **kw)


def test_a_metric_that_raises_costs_its_score_not_the_episode_or_its_verdict(tmp_path: Path, caplog):
    def flaky(*, inputs: Any, outputs: Any, reference_outputs: Any = None) -> dict[str, Any]:
        if inputs["name"] == "forgetful":
            raise RuntimeError("cannot score this one")
        return {"key": "flaky", "score": True}

    plain = _run(tmp_path, "plain")
    scored = _run(tmp_path, "scored", metrics=[flaky])
    assert scored.metrics["convergence_rate"] == plain.metrics["convergence_rate"]
    assert scored.metrics["error_rate"] == 0.0
    records = _records(scored)
    failed = [r["metrics"].get("score/flaky") for r in records if r["scenario"] == "forgetful"]
    assert failed and all(v is None or v != v for v in failed)  # NaN (null in the file): no score
    assert all(r["metrics"]["score/flaky"] == 1.0 for r in records if r["scenario"] == "refund")
    assert any("the metric score/flaky raised on scenario 'forgetful'" in r.getMessage() for r in caplog.records)
    assert scored.metrics["metric_errors_mean"] == sum(r["scenario"] == "forgetful" for r in records) / len(records)


def test_traces_auto_traces_a_factory_that_takes_its_model_and_not_a_modelless_graph(tmp_path: Path):
    from mlflow.tracing.client import TracingClient

    uri = f"sqlite:///{tmp_path / 'ml.db'}"
    counts = {}
    for name, app in (("model", bot_factory), ("rules", one_node(_clerk))):
        run = dialectica.evaluate(
            app, scenarios=SCENARIOS, user=customer, episodes=2, tracking=uri, progress=False, out_dir=tmp_path / name
        )
        run_id = json.loads((run.run_dir / "summary.json").read_text())["graphs"][run.name]["mlflow_run_id"]
        experiment = mlflow.tracking.MlflowClient(uri).get_run(run_id).info.experiment_id
        counts[name] = len(TracingClient(uri).search_traces(locations=[experiment], run_id=run_id, max_results=10))
    assert counts == {"model": 2, "rules": 0}


def test_the_trace_of_an_episode_that_raised_is_in_error(tmp_path: Path):
    from mlflow.tracing.client import TracingClient

    def judge(messages: list[BaseMessage], scenario: dict[str, Any]) -> bool:
        if scenario["name"] == "forgetful":
            raise RuntimeError("no verdict")
        return True

    uri = f"sqlite:///{tmp_path / 'ml.db'}"
    run = _run(tmp_path, "traced", judge=judge, episodes=2, tracking=uri, overrides=["traces=all", "max_error_rate=1"])
    run_id = json.loads((run.run_dir / "summary.json").read_text())["graphs"][run.name]["mlflow_run_id"]
    experiment = mlflow.tracking.MlflowClient(uri).get_run(run_id).info.experiment_id
    traces = TracingClient(uri).search_traces(locations=[experiment], run_id=run_id, max_results=10)
    states = {t.info.tags["dialectica.scenario"]: str(t.info.state) for t in traces}
    assert states == {"refund": "OK", "forgetful": "ERROR"}


def test_an_evaluator_that_cannot_take_what_it_is_called_with_is_refused_before_anything_runs(tmp_path: Path):
    def outputs_only(*, outputs: Any) -> bool:
        return True

    with pytest.raises(ConfigError, match=r"outputs_only\(\*, outputs: 'Any'\) -> 'bool' is called with inputs="):
        _run(tmp_path, "narrow", metrics=[outputs_only])
    assert not (tmp_path / "narrow").exists()


def test_an_episode_that_raised_keeps_the_turns_before_the_error(tmp_path: Path):
    def judge(messages: list[BaseMessage], scenario: dict[str, Any]) -> bool:
        raise RuntimeError("no verdict")

    run = _run(tmp_path, "kept", judge=judge, episodes=2, overrides=["max_error_rate=1"])
    for record in _records(run):
        assert record["termination_reason"] == "error" and "no verdict" in record["error"]
        assert [t["role"] for t in record["transcript"]][:2] == ["user", "assistant"]  # the dialogue it judged


def test_the_first_failures_line_is_its_exception_not_a_note_after_it():
    import traceback

    from dialectica.sim.records import exception_line

    try:
        try:
            raise KeyError("inner")
        except KeyError as inner:
            error = TypeError('No synchronous function provided to "reply"')
            error.add_note("During task with name 'reply' and id 'abc'")
            raise error from inner
    except TypeError:
        text = traceback.format_exc()
    assert text.strip().splitlines()[-1].startswith("During task")  # what the message used to quote
    assert exception_line(text) == 'TypeError: No synchronous function provided to "reply"'
