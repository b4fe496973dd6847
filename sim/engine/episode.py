"""Execute one episode (the engine's first layer): the graph's cast for the plan's seed, one run through the graph
compiled once, a typed record; a fork plays its first turns under the original's params."""

from __future__ import annotations

import re
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from dialectica.metrics.embedding import Embed, with_embedding_agreement
from dialectica.sim.authoring import history
from dialectica.sim.authoring.cast import CastRequest, build_deps
from dialectica.sim.authoring.spec import Episode, EpisodeOutcome, GraphSpec
from dialectica.sim.authoring.termination import TerminationReason
from dialectica.sim.config.fork import Fork
from dialectica.sim.engine.build import EpisodePlan
from dialectica.sim.engine.meter import EpisodeMeter
from dialectica.sim.records import EpisodeRecord


@dataclass
class _Forked(Episode[Any, Any]):
    """The original's context up to turn ``fork_turn``, ``after`` from there on (for graphs driving turns in play)."""

    after: Episode[Any, Any] | None = None
    fork_turn: int = 0

    def at_turn(self, turn: int) -> Episode[Any, Any]:
        # marks where a kept episode completed ``turn`` turns; at the fork, restores the original's state there
        history.at_turn(turn, self.fork_turn if self.after is not None else None)
        return self.after if self.after is not None and turn >= self.fork_turn else self


_CHECKPOINTED: dict[str, Any] = {}
_CHECKPOINTED_LOCK = threading.Lock()


def _checkpointed(spec: GraphSpec, compiled: Any) -> Any:
    """The compiled graph with an in-memory checkpointer, made once per process (a fork pauses at a turn; an
    episode whose checkpoints are kept copies its thread to disk when it frees it)."""
    with _CHECKPOINTED_LOCK:
        if spec.name not in _CHECKPOINTED:
            _CHECKPOINTED[spec.name] = compiled.copy(update={"checkpointer": history.Keeper()})
        return _CHECKPOINTED[spec.name]


def _play_forked(
    spec: GraphSpec,
    compiled: Any,
    deps: Any,
    params: Any,
    seed: int,
    fork: Fork,
    state: dict[str, Any],
    config: dict[str, Any],
) -> dict[str, Any]:
    """Plays the episode's first ``fork.turn`` turns under the original's params and the rest under ``params``.

    A graph with ``play`` asks its episode for each turn's context; a graph run in one ``invoke`` is streamed
    under the original's params until its state has completed ``fork.turn`` turns (``spec.turns``), and
    continued from that checkpoint under the replay's: the same cast objects throughout, so every seeded draw
    of the prefix is the original's.
    """
    after = Episode(deps, params, seed)
    if spec.play is not None:
        return spec.play(compiled, _Forked(deps, fork.before, seed, after=after, fork_turn=fork.turn), state, config)
    assert spec.turns is not None  # checked when the replay was configured
    graph = _checkpointed(spec, compiled)
    thread = f"fork-{uuid.uuid4().hex}"
    config = {**config, "configurable": {"thread_id": thread}}
    try:
        for values in graph.stream(state, config, context=Episode(deps, fork.before, seed), stream_mode="values"):
            if spec.turns(values) >= fork.turn:
                break
        history.restore_now(fork.turn)  # where the original kept its checkpoints, the fork goes on from its recorded state
        if graph.get_state(config).next:
            graph.invoke(None, config, context=after)
        return dict(graph.get_state(config).values)
    finally:
        graph.checkpointer.delete_thread(thread)


# LangGraph notes a failed node's task with its run-time id, which no seed fixes ("During task with name 'x'
# and id '3ba5be76-...'"); dropped, so that the same seed gives the same error record.
_TASK_ID = re.compile(r" and id '[0-9a-f-]{36}'")


def _traceback(exc: BaseException) -> str:
    return _TASK_ID.sub("", "".join(traceback.format_exception(exc)))


def _invoke_kept(compiled: Any, state: dict[str, Any], config: dict[str, Any], episode: Episode[Any, Any]) -> Any:
    """One run on a thread of its own, freed at the end (which keeps its checkpoints, ``authoring/history``)."""
    config = {**config, "configurable": {"thread_id": f"episode-{uuid.uuid4().hex}"}}
    try:
        return compiled.invoke(state, config, context=episode)
    finally:
        compiled.checkpointer.delete_thread(config["configurable"]["thread_id"])


def run_episode(
    spec: GraphSpec,
    params: Any,
    plan: EpisodePlan,
    embed: Callable[[list[str]], Any] | None = None,
    agreement: Embed | None = None,
    keep: history.Keeping | None = None,
    callbacks: Sequence[Any] = (),
) -> EpisodeRecord:
    """Runs one episode through the graph compiled once for the process and builds its record once; with
    ``agreement``, each round's embedding agreement is measured first; with ``keep``, its LangGraph checkpoints
    are kept and a fork goes on from the original's (``authoring/history``); ``callbacks`` (LangChain callback
    handlers, such as MLflow's tracer) see every node run and model call. An exception becomes a record with
    reason ``error`` and its traceback."""
    with history.keeping(keep):
        record = _run(spec, params, plan, embed, agreement, keep, callbacks)
    if keep is not None and keep.restored and record.fork is not None:
        record.fork["restored"] = True
    return record


@dataclass(frozen=True)
class _Ready:
    """An episode ready to run: the graph (compiled once), its runtime context, initial state and LangGraph config."""

    spec: GraphSpec
    compiled: Any
    episode: Episode[Any, Any]
    state: dict[str, Any]
    config: dict[str, Any]


def _head(plan: EpisodePlan) -> dict[str, Any]:
    """The record's fields known before the episode runs: which graph, episode, seed, scenario, cast and fork."""
    head = {
        "graph": plan.graph,
        "episode": plan.index,
        "seed": plan.seed,
        "scenario": plan.scenario["name"],
        "participants": plan.participants,
    }
    if plan.fork is not None:
        head["fork"] = {"run": plan.fork.run, "turn": plan.fork.turn}
    return head


def _prepare(
    spec: GraphSpec,
    params: Any,
    plan: EpisodePlan,
    embed: Callable[[list[str]], Any] | None,
    keep: history.Keeping | None,
    fork: Fork | None,
    callbacks: list[Any],
) -> _Ready:
    """Casts the episode for its seed and readies the graph, its initial state and config (a fork starts under the
    original's params)."""
    request = CastRequest(
        plan.scenario,
        plan.seed,
        plan.faults,
        embed=embed,
        datasets=plan.datasets,
        voices=plan.voices,
        options=plan.options,
    )
    deps = build_deps(spec, plan.participants, request)
    episode = Episode(deps, params, plan.seed) if keep is None else _Forked(deps, params, plan.seed)
    compiled = spec.compiled()
    if keep is not None and compiled is not None:  # a graph used as it is has the harness's Keeper already
        compiled = _checkpointed(spec, compiled)
    state = spec.initial_state(plan.scenario, fork.before if fork else params)
    limit = max(spec.recursion_limit(params), spec.recursion_limit(fork.before) if fork else 0)
    return _Ready(spec, compiled, episode, state, {"recursion_limit": limit, "callbacks": callbacks})


def _play(ready: _Ready) -> Any:
    """A graph that drives its own turns (``spec.play``)."""
    play = ready.spec.play
    assert play is not None  # the dispatch plays only a graph that has it
    return play(ready.compiled, ready.episode, ready.state, ready.config)


def _invoke(ready: _Ready) -> Any:
    """One plain run through the compiled graph."""
    return ready.compiled.invoke(ready.state, ready.config, context=ready.episode)


def _final_state(ready: _Ready, fork: Fork | None, kept: bool) -> Any:
    """The episode's final state, by one of four paths: a fork of an earlier run, the graph's own ``play``, a run
    whose checkpoints are kept, or one plain ``invoke``."""
    if fork is not None:
        episode = ready.episode
        return _play_forked(
            ready.spec, ready.compiled, episode.deps, episode.params, episode.seed, fork, ready.state, ready.config
        )
    if ready.spec.play is not None:
        return _play(ready)
    if kept:
        return _invoke_kept(ready.compiled, ready.state, ready.config, ready.episode)
    return _invoke(ready)


def _check_ending(spec: GraphSpec, outcome: EpisodeOutcome) -> None:
    """Raises unless the episode ended with a string the graph declares (any string where it declares none)."""
    endings = spec.endings()
    if not isinstance(outcome.termination, str) or (endings and outcome.termination not in endings):
        ending = str(outcome.termination) if isinstance(outcome.termination, str) else outcome.termination
        raise ValueError(
            f"graph {spec.name} ended an episode with {ending!r}, which it does "
            f"not declare; declared: {', '.join(endings) or '(none: return a string)'}"
        )


def _body(spec: GraphSpec, outcome: EpisodeOutcome, agreement: Embed | None) -> dict[str, Any]:
    """The record's fields from the graph's outcome; with ``agreement``, each round's embedding agreement added."""
    reason = str(outcome.termination)
    per_round, metrics = outcome.per_round, outcome.metrics
    if agreement is not None:
        per_round, metrics = with_embedding_agreement(outcome.transcript, per_round, metrics, agreement)
    return {
        "termination_reason": reason,
        "metrics": metrics,
        "per_round": per_round,
        "converged": spec.converges(reason) if outcome.converged is None else bool(outcome.converged),
        "transcript": outcome.transcript,
        "artifacts": outcome.artifacts,
        "labels": outcome.labels,
        "final_state": outcome.final_state,
        "context": outcome.context,
    }


def _record(head: dict[str, Any], body: dict[str, Any], timings: dict[str, Any], meter: EpisodeMeter) -> EpisodeRecord:
    """The typed record; an outcome that breaks the record's schema gives an error record, not a crash."""
    try:
        return EpisodeRecord(**head, **body, timings=timings, usage=meter.summary())
    except ValidationError as exc:
        return EpisodeRecord(
            **head,
            termination_reason=TerminationReason.ERROR.value,
            timings=timings,
            usage=meter.summary(),
            error=f"the episode's record is malformed: {exc}",
        )


def _run(
    spec: GraphSpec,
    params: Any,
    plan: EpisodePlan,
    embed: Callable[[list[str]], Any] | None,
    agreement: Embed | None,
    keep: history.Keeping | None,
    callbacks: Sequence[Any] = (),
) -> EpisodeRecord:
    meter = EpisodeMeter()
    graph_timings: dict[str, Any] = {}
    head = _head(plan)
    fork = plan.fork if plan.fork is not None and plan.fork.turn > 0 else None
    t0 = time.perf_counter()
    try:
        ready = _prepare(spec, params, plan, embed, keep, fork, [meter, *callbacks])
        final = _final_state(ready, fork, kept=keep is not None)
        outcome = spec.outcome(final, params, plan.scenario)
        _check_ending(spec, outcome)
        body = _body(spec, outcome, agreement)
        graph_timings = outcome.timings
    except Exception as exc:  # noqa: BLE001 - one failing episode must not lose the others
        body = {"termination_reason": TerminationReason.ERROR.value, "error": _traceback(exc)}
        played = getattr(exc, "transcript", None)  # the turns before the error (a graph used as it is)
        if isinstance(played, list):
            body["transcript"] = played
    timings = {
        "episode_seconds": time.perf_counter() - t0,
        "node_seconds": {node: list(times) for node, times in meter.node_seconds.items()},
        **meter.runtime(),
        **graph_timings,
    }
    return _record(head, body, timings, meter)
