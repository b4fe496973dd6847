"""A graph used as it is, as a ``GraphSpec``: its knobs, the user and judge, its endings.

The graph keeps its own state, ``context_schema`` and models. What the harness adds:

- knobs: the fields of the graph's ``context_schema`` that have plain defaults (bool, int, float, str), and
  the plain keyword arguments of a factory that builds the graph, become ``graph.<knob>`` keys (typed and
  checked like any graph's params), so a sweep over them is one command; the context is built per episode
  from them (and from a context the researcher gives);
- a checkpointer of its own (in memory, one thread per episode, freed when the episode ends), so that a graph
  keeps its state between the user's turns and may ``interrupt()``;
- the endings below, and any the researcher declares.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import math
import re
import sys
import threading
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from langchain_core.language_models import BaseChatModel

from dialectica.metrics.trajectory import expected_call
from dialectica.sim.adapter import ecosystem, trajectories
from dialectica.sim.adapter.cache import episode_cache
from dialectica.sim.adapter.dialogue import GRAPH, TURNS, USER, Dialogue, converse, keep_transcript
from dialectica.sim.adapter.judges import LLMJudge, RuleJudge, Verdict, empty_reasons
from dialectica.sim.adapter.roles import RoleModel, episode_models, model_arguments
from dialectica.sim.adapter.rubrics import RUBRICS, rubric
from dialectica.sim.adapter.scenarios import prepare_scenario
from dialectica.sim.adapter.snapshot import context_values, final_state
from dialectica.sim.adapter.strings import import_object, judge_from, user_from
from dialectica.sim.adapter.users import LLMUser, ScriptedUser, Turns
from dialectica.sim.authoring.history import Keeper
from dialectica.sim.authoring.params import HARNESS, REBUILDS_GRAPH, WHY, ConfigError, bounded, closest, did_you_mean
from dialectica.sim.authoring.speakers import SYSTEM
from dialectica.sim.authoring.spec import EpisodeOutcome, GraphSpec, GraphView
from dialectica.sim.authoring.termination import declared

ENDINGS = {
    "converged": "The judge found that the user got what they came for",
    USER: "The user stopped before the judge found their goal met",
    TURNS: "The turn limit was reached before the judge found the user's goal met",
    GRAPH: "The graph finished on its own before the judge found the user's goal met",
}
PLAIN = (bool, int, float, str)
RAISED = "raised"  # a score's comment when its metric raised (the score is NaN)
# graph.<key>s that are not knobs
HARNESS_KEYS = ("name", "max_turns", "user", "judge", "judge_every_turn", "metrics", "scenarios", "cache")
_log = logging.getLogger(__name__)
CACHE = "${hydra:runtime.cwd}/results/cache/llm.sqlite"  # graph.cache: the graph's own model calls (null: off)


def is_graph(obj: Any) -> bool:
    """A compiled LangGraph graph (anything with ``invoke``, ``get_state`` and a ``copy`` that sets a checkpointer)."""
    return all(hasattr(obj, a) for a in ("invoke", "get_state", "copy"))


def _harness(default: Any) -> Any:
    """A ``graph.<key>`` field the harness adds, marked so (``HARNESS``) for messages that tell it from a knob."""
    if isinstance(default, dataclasses.Field):
        default.metadata = types.MappingProxyType({**default.metadata, HARNESS: True})
        return default
    return field(default=default, metadata={HARNESS: True})


def _plain(value: Any) -> bool:
    return isinstance(value, PLAIN) and not (isinstance(value, float) and value != value)


class Knob(NamedTuple):
    """A graph's own knob: its type, its default, and whether the type was read from the default alone."""

    kind: type
    default: Any
    inferred: bool


PLAIN_TYPES = {"bool": bool, "int": int, "float": float, "str": str}


def _annotated(annotation: Any) -> type | None:
    """The plain type an annotation names (``float``, ``"float"``, ``float | None``, ``Optional[float]``), else None.
    A string is read as text, never evaluated: a name imported only for type checking does not resolve."""
    if isinstance(annotation, str):
        text = re.sub(r"^(typing\.)?Optional\[(.*)\]$", r"\2", annotation.replace(" ", "").strip("'\""))
        names = [part for part in text.split("|") if part != "None"]
        return PLAIN_TYPES.get(names[0]) if len(names) == 1 else None
    if annotation in PLAIN_TYPES.values():
        return annotation  # type: ignore[no-any-return]
    types_ = [a for a in typing.get_args(annotation) if a is not type(None)]
    return types_[0] if len(types_) == 1 and types_[0] in PLAIN_TYPES.values() else None


def _knob(annotation: Any, default: Any) -> Knob:
    """A knob typed by its annotation where that names a plain type (``x: float = 1`` takes 0.5), else by its
    default (an unannotated ``x=80`` is an int knob)."""
    kind = _annotated(annotation)
    return Knob(kind or type(default), default, kind is None)


def _context_knobs(schema: Any) -> dict[str, Knob]:
    """The fields of a context schema (dataclass or pydantic model) that have plain defaults."""
    if schema is None:
        return {}
    if dataclasses.is_dataclass(schema):
        return {f.name: _knob(f.type, f.default) for f in dataclasses.fields(schema) if _plain(f.default)}
    fields = getattr(schema, "model_fields", None)  # pydantic
    if isinstance(fields, dict):
        return {name: _knob(f.annotation, f.default) for name, f in fields.items() if _plain(f.default)}
    return {}


def _factory_knobs(factory: Callable[..., Any]) -> dict[str, Knob]:
    """A factory's keyword arguments that have plain defaults (its signature: a class's ``__init__``, a callable's
    ``__call__``)."""
    return {
        name: _knob(p.annotation, p.default)
        for name, p in inspect.signature(factory).parameters.items()
        if _plain(p.default)
    }


@dataclass
class App:
    """A graph (or a factory of graphs) with what it takes to evaluate it.

    Attributes:
        target: A compiled graph, or a factory ``f(**knobs) -> compiled graph`` (called once per knob values).
        name: Its name in records, MLflow and ``graph=``.
        user: Who talks to it; None: the scenario's ``turns`` (``participants=scripted``), or an LLM playing its
            ``persona`` (``participants=surrogate``), or ``graph.user`` (an import string).
        judge: A rule ``(messages, scenario[, state]) -> bool | Verdict``, an ``LLMJudge``, or None (no judge:
            no episode converges; ``graph.judge`` may name one, or ``llm`` for an LLM judge with the scenario's rubric).
        context: The graph's runtime context: an object, a mapping, or ``f(scenario) -> context``; knobs that
            are context fields are set on it per episode.
        endings: The graph's own endings, reason -> meaning (a judge's ``Verdict.ending`` or ``ending`` returns them).
        ending: ``ending(final_state) -> reason | None``: an ending read from the graph's final state.
        max_turns: The user's turns at most (``graph.max_turns``).
        judge_every_turn: Judge after each of the graph's replies and end the episode as soon as the judge passes
            it (``graph.judge_every_turn``); False: judge once, when the user, the graph or the turn limit ends it.
        metrics: Evaluators from the ecosystem scoring each episode besides the judge (``graph.metrics``; see
            ``sim/adapter/ecosystem.py``): ``score/<key>`` per episode, the comment beside it.
    """

    target: Any
    name: str
    user: Any = None
    judge: Any = None
    context: Any = None
    endings: Mapping[str, str] = field(default_factory=dict)
    ending: Callable[[dict[str, Any]], str | None] | None = None
    max_turns: int = 10
    judge_every_turn: bool = False
    metrics: Sequence[Any] = ()
    _graphs: dict[tuple[Any, ...], Any] = field(default_factory=dict, repr=False)
    _score_keys: dict[int, tuple[Any, list[str]]] = field(default_factory=dict, repr=False)  # evaluator's keys
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.factory = None if is_graph(self.target) else self.target
        if self.factory is not None and not callable(self.factory):
            raise ConfigError(
                f"{self.name}: expected a compiled LangGraph graph or a function that builds one, "
                f"got {type(self.target).__name__}"
            )
        self.factory_knobs = _factory_knobs(self.factory) if self.factory else {}
        for name in HARNESS_KEYS:  # an argument named like the harness's keys keeps its default
            self.factory_knobs.pop(name, None)
        self.model_roles = model_arguments(self.factory) if self.factory else {}
        schema = getattr(self.graph({}), "context_schema", None)
        self.context_knobs = {
            k: v for k, v in _context_knobs(schema).items() if k not in self.factory_knobs and k not in HARNESS_KEYS
        }
        self.has_context = schema is not None
        if callable(self.user) and not hasattr(self.user, "speaker"):
            self.user = ScriptedUser(self.user)
        elif isinstance(self.user, (list, tuple, dict)):
            self.user = Turns(self.user)
        elif self.user is not None and not hasattr(self.user, "speaker"):
            raise ConfigError(
                f"user={self.user!r} is invalid; valid values: a function (messages, scenario, rng) -> str | None, "
                "a list of turns, a mapping of scenario name -> turns, dialectica.LLMUser(...), or None (each "
                "scenario's turns)"
            )
        if ecosystem.is_evaluator(self.judge):
            self.judge = ecosystem.EvaluatorJudge(ecosystem.check(self.judge))
        elif callable(self.judge) and not hasattr(self.judge, "judge"):
            self.judge = RuleJudge(self.judge)
        elif self.judge is not None and not hasattr(self.judge, "judge"):
            raise ConfigError(
                f"judge={self.judge!r} is invalid; valid values: a function (messages, scenario[, state]) -> bool | "
                "Verdict, dialectica.LLMJudge(...), an openevals/agentevals evaluator, an MLflow scorer, or None "
                "(no judge)"
            )
        for extra in self.metrics:
            if ecosystem.is_evaluator(extra):
                ecosystem.check(extra)
            elif not hasattr(extra, "judge"):
                raise ConfigError(
                    f"metrics=[..., {extra!r}, ...]: not an evaluator; valid values: dialectica.rubric(NAME), "
                    "LLMJudge(...), openevals/agentevals evaluators (keyword-only: def m(*, inputs, outputs, "
                    "reference_outputs)) and MLflow scorers"
                )
        self.all_endings = {**ENDINGS, **declared(self.endings)}

    def graph(self, knobs: Mapping[str, Any]) -> Any:
        """The compiled graph for these factory knobs, with the harness's checkpointer; built once per values."""
        values = {k: knobs.get(k, knob.default) for k, knob in getattr(self, "factory_knobs", {}).items()}
        key = tuple(sorted(values.items()))
        with self._lock:
            if key not in self._graphs:
                models = {role: RoleModel(role=role, default=default) for role, default in self.model_roles.items()}
                built = self.factory(**values, **models) if self.factory else self.target
                if not is_graph(built):
                    raise ConfigError(f"{self.name}: the factory returned {type(built).__name__}, not a compiled graph")
                self._graphs[key] = built.copy(update={"checkpointer": Keeper()})
            return self._graphs[key]

    def params_class(self) -> type:
        """The ``graph.<key>`` dataclass: the turn limit, user, judge and scenarios, then the graph's knobs."""
        own = [
            ("max_turns", int, bounded(self.max_turns, 1, 10_000)),
            ("user", str | None, None),
            ("judge", str | None, None),
            ("judge_every_turn", bool, self.judge_every_turn),
            ("metrics", list[str] | None, None),
            ("scenarios", str | None, None),
            ("cache", str | None, CACHE),
        ]
        knobs = {**self.context_knobs, **self.factory_knobs}
        # a factory knob builds another graph: a replay cannot move an episode's thread onto it after a turn
        fields = [
            *((k, t, _harness(d)) for k, t, d in own),
            *((k, kn.kind, field(default=kn.default, metadata=self._knob_metadata(k, kn))) for k, kn in knobs.items()),
        ]

        def check_run(params: Any, *args: Any) -> None:  # a function, so that params binds as self
            self._check_run(params, *args)

        return dataclasses.make_dataclass("AppParams", fields, frozen=True, namespace={"check_run": check_run})

    def _knob_metadata(self, key: str, knob: Knob) -> dict[str, Any]:
        metadata: dict[str, Any] = {REBUILDS_GRAPH: True} if key in self.factory_knobs else {}
        if knob.kind is int and knob.inferred:  # it refuses 0.5: say where that came from, and how to take decimals
            shown = f"{key}: float = {knob.default}"
            metadata[WHY] = f"(an integer knob, as its default {knob.default} is; `{shown}` takes decimals)"
        return metadata

    def _check_run(self, params: Any, scenarios: list[dict[str, Any]], participants: str, voices: Any) -> None:
        """What an episode would find missing, said before any runs: the user's and judge's import strings, the
        scenario keys they read (``turns``; ``persona`` or ``instructions``; ``rubric``; a reference), expected
        tools the graph does not have, and a model for a judge that needs one.

        Raises:
            ConfigError: naming the key or scenario and what to do.
        """
        user, judge, metrics = self._user(params, participants == "surrogate"), self._judge(params), self._metrics(params)
        if judge is None:
            _log.warning(
                "%s has no judge, so no episode converges (convergence_rate 0): give one with judge=... "
                "(evaluate) or graph.judge=llm|trajectory|package.module:fn",
                self.name,
            )
        tools = graph_tools(self.target) if self.factory is None else None
        for scenario in scenarios:
            self._check_scenario(scenario, user, judge, metrics, tools)
        if any(isinstance(j, LLMJudge) and j.model is None for j in (judge, *metrics)):
            voices.require("judge")
        for role, default in self.model_roles.items():
            if default is None:
                voices.require(role)

    def _check_scenario(
        self, scenario: dict[str, Any], user: Any, judge: Any, metrics: list[Any], tools: set[str] | None
    ) -> None:
        where = f"scenario {scenario['name']!r}"
        if isinstance(user, Turns) and user.turns is None and "turns" not in scenario:
            raise ConfigError(
                f"{where} has no 'turns'{_typo(scenario, 'turns')} for a scripted user; add a list of turns, or "
                "give a user (graph.user=package.module:fn, or participants=surrogate for an LLM playing its persona)"
            )
        if (
            isinstance(user, LLMUser)
            and user.persona is None
            and user.instructions is None
            and not (scenario.get("persona") or scenario.get("instructions"))
        ):
            typo = _typo(scenario, "persona") or _typo(scenario, "instructions")
            raise ConfigError(f"{where} has neither 'persona' nor 'instructions'{typo} for an LLM user; add one")
        if isinstance(judge, ecosystem.EvaluatorJudge) and ecosystem.needs_reference(judge.evaluator):
            name = ecosystem.name_of(judge.evaluator)
            if ecosystem.reference(scenario) is None:
                raise ConfigError(
                    f"{where} has neither 'reference_outputs' nor 'expected_tools' for the judge"
                    f"{'' if name.startswith('_') else ' ' + name}, an evaluator that compares the outputs with "
                    "them; add one"
                )
        if isinstance(judge, trajectories.TrajectoryJudge) and "expected_tools" not in scenario:
            raise ConfigError(
                f"{where} has no 'expected_tools'{_typo(scenario, 'expected_tools')} for the trajectory judge; "
                "add the tool calls it should make"
            )
        for j in (judge, *metrics):
            if isinstance(j, LLMJudge) and j.rubric is None and not scenario.get("rubric"):
                what = "the LLM judge" if j is judge else f"the metric rubric/{getattr(j, 'name', 'judge')}"
                raise ConfigError(
                    f"{where} has no 'rubric'{_typo(scenario, 'rubric')} for {what}; add one, or give it its rubric"
                )
        expected = [expected_call(e)["name"] for e in scenario.get("expected_tools") or []]
        unknown = [name for name in expected if tools is not None and name not in tools]
        if unknown:  # said, not refused: a tool may run in a node of the graph's own, which holds no ToolNode
            _log.warning(
                "%s expects the tool %r, which no ToolNode of the graph holds%s; their tools: %s",
                where,
                unknown[0],
                did_you_mean(unknown[0], tools or ()),
                ", ".join(sorted(tools or ())),
            )

    def _context(self, scenario: dict[str, Any], knobs: dict[str, Any]) -> Any:
        base = self.context(scenario) if callable(self.context) and not isinstance(self.context, type) else self.context
        values = {k: knobs[k] for k in self.context_knobs if k in knobs}
        if base is None:
            return values if self.has_context else None
        if isinstance(base, Mapping):
            return {**base, **values}
        if dataclasses.is_dataclass(base) and not isinstance(base, type):
            return dataclasses.replace(base, **values)
        if hasattr(base, "model_copy"):
            return base.model_copy(update=values)
        return base

    def _user(self, params: Any, surrogate: bool) -> Any:
        if self.user is not None:
            return self.user
        if params.user:
            return user_from(params.user)
        return LLMUser() if surrogate else Turns()

    def _metrics(self, params: Any) -> list[Any]:
        """The evaluators that score each episode: ``metrics=`` and ``graph.metrics`` (import strings)."""
        named, given = [], params.metrics
        for target in map(str, [given] if isinstance(given, str) else given or []):  # one, or a list [a,b]
            if ":" not in target:  # a ready rubric's name
                named.append(rubric(target))
                continue
            try:
                obj = import_object(target)
            except ConfigError as exc:
                raise ConfigError(f"graph.metrics: {exc}") from None
            if not (ecosystem.is_evaluator(obj) or hasattr(obj, "judge")):
                raise ConfigError(
                    f"graph.metrics: {target} is a {type(obj).__name__}, not an evaluator; valid values: "
                    f"{', '.join(RUBRICS)}, openevals/agentevals evaluators and MLflow scorers (package.module:name)"
                )
            named.append(ecosystem.check(obj) if ecosystem.is_evaluator(obj) else obj)
        return [*self.metrics, *named]

    def _scores(self, params: Any, dialogue: Dialogue, scenario: dict[str, Any], cast: Any) -> list[ecosystem.Score]:
        """Each extra metric's scores of the finished episode: ``rubric/<name>`` for our judges (1 when passed),
        ``score/<key>`` for the ecosystem's evaluators."""
        out = []
        for metric in self._metrics(params):
            ours = hasattr(metric, "judge")
            if not ours and ecosystem.needs_reference(metric) and ecosystem.reference(scenario) is None:
                keys = self._score_keys.get(id(metric), (None, []))[1]  # its keys, once it has scored: else none
                out += [ecosystem.Score(k, math.nan, ecosystem.NO_REFERENCE) for k in keys]  # undefined either way
                continue
            try:
                if ours:
                    verdict = metric.judge(dialogue.messages, scenario, dialogue.state, cast)
                    scored = [
                        ecosystem.Score(f"rubric/{getattr(metric, 'name', 'judge')}", float(verdict.passed), verdict.reason)
                    ]
                else:
                    scored = [
                        ecosystem.Score(f"score/{s.key}", s.value, s.comment)
                        for s in ecosystem.scores(metric, scenario, dialogue.messages, dialogue.state)
                    ]
                if not ours:  # an evaluator's keys are its results' (an openevals closure's name says none)
                    self._score_keys[id(metric)] = (metric, [s.key for s in scored])  # held: its id stays its own
            except ConfigError:
                raise  # bad input: every episode would meet it
            except Exception as exc:  # noqa: BLE001 - a metric's fault costs its score, not the episode and its verdict
                keys = (
                    [f"rubric/{getattr(metric, 'name', 'judge')}"]
                    if ours
                    else self._score_keys.get(id(metric), (None, [f"score/{ecosystem.name_of(metric)}"]))[1]
                )
                _log.warning("%s: the metric %s raised on scenario %r: %s", self.name, keys[0], scenario["name"], exc)
                scored = [ecosystem.Score(k, math.nan, f"{RAISED} {type(exc).__name__}: {exc}") for k in keys]
            out += scored
        return out

    def _judge(self, params: Any) -> Any:
        if self.judge is not None or not params.judge:
            return self.judge
        if params.judge == "llm":
            return LLMJudge()
        if params.judge == "trajectory":
            return trajectories.TrajectoryJudge()
        if params.judge in RUBRICS:
            return rubric(params.judge)
        return judge_from(params.judge)

    def play(self, compiled: Any, episode: Any, state: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
        """One episode: the dialogue, then the judge's verdict."""
        request, params = episode.deps, episode.params  # what the dialogue starts under
        ending = episode.at_turn(sys.maxsize).params  # what it ends under: a replay's overrides, after its fork
        knobs = dataclasses.asdict(params)
        cast = EpisodeCast(request, config.get("callbacks") or [])
        scenario = request.scenario
        speaker = self._user(params, request.voices.surrogate).speaker(scenario, episode.seed, cast)
        models = {
            role: request.system(role, lambda d=default: d)
            for role, default in self.model_roles.items()
            if default is not None or request.voices.is_llm(role, SYSTEM)
        }
        last: list[Any] = []  # the context of the graph's last run, for the record

        def context(turn: int) -> Any:
            # a replay's fork changes the context from its turn on (episode.at_turn); a plain run has one
            last[:] = [self._context(scenario, dataclasses.asdict(episode.at_turn(turn).params))]
            return last[0]

        judge = self._judge(ending)
        judged: list[tuple[int, Verdict]] = []  # (transcript length, verdict) of the latest judgment

        def met(dialogue: Dialogue) -> bool:
            assert judge is not None  # stop is given only with a judge
            judged[:] = [(len(dialogue.transcript), judge.judge(dialogue.messages, scenario, dialogue.state, cast))]
            return bool(judged[0][1].passed)

        with episode_cache(params.cache, episode.seed) as cached, episode_models(models):
            dialogue = converse(
                self.graph(knobs),
                speaker,
                max_turns=ending.max_turns,
                config=config,
                context=context,
                start=scenario.get("input"),
                stop=met if judge is not None and ending.judge_every_turn else None,
            )
            try:
                if judged and judged[0][0] == len(dialogue.transcript):  # judged already, on this very dialogue
                    verdict: Verdict | None = judged[0][1]
                else:
                    verdict = judge.judge(dialogue.messages, scenario, dialogue.state, cast) if judge is not None else None
                scored = self._scores(ending, dialogue, scenario, cast)
            except Exception as exc:
                keep_transcript(exc, dialogue)
                raise
        own = self.ending(dialogue.state) if self.ending is not None else None
        timings = {"graph_cache_lookups": cached.lookups, "graph_cache_hits": cached.hits} if cached else {}
        ran_with = context_values(
            last[0] if last else self._context(scenario, dataclasses.asdict(ending)),
            {k: getattr(ending, k) for k in self.factory_knobs},
        )
        return {
            "dialogue": dialogue,
            "verdict": verdict,
            "ending": own,
            "timings": timings,
            "context": ran_with,
            "scores": scored,
        }

    def outcome(self, final: dict[str, Any], params: Any, scenario: dict[str, Any]) -> EpisodeOutcome:
        dialogue: Dialogue = final["dialogue"]
        verdict: Verdict | None = final["verdict"]
        reason = (
            (verdict.ending if verdict and verdict.ending else None)
            or final["ending"]
            or ("converged" if verdict and verdict.passed else dialogue.ended_by)
        )
        words = {"user": 0, "assistant": 0}
        per_round: dict[int, dict[str, Any]] = {}
        for turn in dialogue.transcript:
            if turn["role"] in words:
                words[turn["role"]] += len(turn["text"].split())
            if turn["role"] == "assistant":
                row = per_round.setdefault(turn["round"], {"round": turn["round"], "assistant_words": 0})
                row["assistant_words"] += len(turn["text"].split())
        metrics = {
            "rounds": float(dialogue.turns),
            "user_words": float(words["user"]),
            "assistant_words": float(words["assistant"]),
            "tool_calls": float(sum(t["role"] == "tool_call" for t in dialogue.transcript)),
            **trajectories.episode_metrics(dialogue.tool_calls(), dialogue.path, scenario),
        }
        scored: list[ecosystem.Score] = final.get("scores") or []
        metrics |= {s.key: s.value for s in scored}
        if scored:  # scores an extra metric lost by raising: their means are over the episodes it scored
            metrics["metric_errors"] = float(sum(s.comment.startswith(RAISED) and math.isnan(s.value) for s in scored))
        if verdict is not None:
            metrics["judge_passed"] = float(verdict.passed)
            if verdict.reasoned is not None:
                metrics["judge_empty_reason"] = float(not verdict.reasoned)
        return EpisodeOutcome(
            termination=reason,
            metrics=metrics,
            per_round=[per_round[k] for k in sorted(per_round)],
            transcript=dialogue.transcript,
            artifacts={
                **({"judge": verdict.reason} if verdict is not None and verdict.reason else {}),
                **{s.key: s.comment for s in scored if s.comment},
            },
            timings=final["timings"],
            converged=verdict.passed if verdict is not None else None,
            final_state=final_state(dialogue.state),
            context=final.get("context"),
        )

    def _roles(self) -> dict[str, str]:
        """The roles the run's ``llm`` config may play (``llm.roles.user``, ``llm.roles.judge``): not those that
        bring a model of their own or need none."""
        roles = {}
        if self.user is None or (isinstance(self.user, LLMUser) and self.user.model is None):
            roles["user"] = "participant"
        if self.judge is None or any(isinstance(j, LLMJudge) and j.model is None for j in (self.judge, *self.metrics)):
            roles["judge"] = "system"
        return roles | dict.fromkeys(self.model_roles, "system")

    def spec(self, datasets: Path = Path(".")) -> GraphSpec:
        return GraphSpec(
            name=self.name,
            params=self.params_class(),
            build=lambda: None,
            initial_state=lambda scenario, params: {},
            outcome=self.outcome,
            play=self.play,
            casts={"scripted": _request, "surrogate": _request},
            datasets=datasets,
            prepare_scenario=prepare_scenario,
            roles=self._roles(),
            own_models=bool(self.model_roles),
            agreement=False,
            metrics=(empty_reasons, trajectories.trajectories_by_scenario),
            terminations=self.all_endings,
            description=f"a LangGraph graph evaluated as it is ({'factory' if self.factory else 'compiled graph'})",
            view=GraphView(explain=lambda record: (record.get("artifacts") or {}).get("judge", "")),
        )


def graph_tools(compiled: Any) -> set[str] | None:
    """The names of the tools the ``ToolNode`` s of a compiled graph and its subgraphs hold, or None where it has
    none (a hand-written tool node's tools cannot be read)."""
    try:
        graphs = [compiled, *(sub for _, sub in compiled.get_subgraphs(recurse=True))]
    except Exception:  # noqa: BLE001 - not a graph whose subgraphs can be listed: its own nodes only
        graphs = [compiled]
    found = [getattr(node, "bound", None) for graph in graphs for node in getattr(graph, "nodes", {}).values()]
    held = [tools for tools in (getattr(node, "tools_by_name", None) for node in found) if isinstance(tools, Mapping)]
    return {str(name) for names in held for name in names} if held else None


def _typo(scenario: Mapping[str, Any], key: str) -> str:
    """`` (it has 'rubirc': a typo?)`` when the scenario has a key a letter or two off ``key``."""
    near = closest(key, scenario)
    return f" (it has {near!r}: a typo?)" if near else ""


def _request(request: Any) -> Any:
    """The episode's deps are its cast request: the user and judge are built in ``play``, where the meter is."""
    return request


@dataclass(frozen=True)
class EpisodeCast:
    """The models a user or judge may need in one episode, and the callbacks that meter their calls."""

    request: Any
    callbacks: list[Any]

    def model(self, role: str, persona: str) -> BaseChatModel:
        if role == "user":
            user: BaseChatModel = self.request.participant(role, persona, role)
            return user

        def no_model() -> BaseChatModel:
            raise ConfigError(
                f"the {role} needs a model: add llm=llamacpp or llm=openai (or '+llm.roles.{role}={{backend: llamacpp}}'), "
                f"or give it one (model=...)"
            )

        model: BaseChatModel = self.request.system(role, no_model)
        if persona and hasattr(model, "persona"):
            model = model.model_copy(update={"persona": persona})
        return model
