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
from dialectica.sim.authoring.cast import CastRequest, build_deps
from dialectica.sim.authoring.spec import Episode, GraphSpec
from dialectica.sim.authoring.termination import TerminationReason
from dialectica.sim.engine import history
from dialectica.sim.engine.build import EpisodePlan, Fork
from dialectica.sim.engine.meter import EpisodeMeter
from dialectica.sim.engine.records import EpisodeRecord


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
    """One run on a thread of its own, freed at the end (which keeps its checkpoints, ``engine/history``)."""
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
    are kept and a fork goes on from the original's (``engine/history``); ``callbacks`` (LangChain callback
    handlers, such as MLflow's tracer) see every node run and model call. An exception becomes a record with
    reason ``error`` and its traceback."""
    with history.keeping(keep):
        record = _run(spec, params, plan, embed, agreement, keep, callbacks)
    if keep is not None and keep.restored and record.fork is not None:
        record.fork["restored"] = True
    return record


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
    head = {
        "graph": plan.graph,
        "episode": plan.index,
        "seed": plan.seed,
        "scenario": plan.scenario["name"],
        "participants": plan.participants,
    }
    fork = plan.fork if plan.fork is not None and plan.fork.turn > 0 else None
    if plan.fork is not None:
        head["fork"] = {"run": plan.fork.run, "turn": plan.fork.turn}
    t0 = time.perf_counter()
    try:
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
        config: dict[str, Any] = {"recursion_limit": limit, "callbacks": [meter, *callbacks]}
        if fork is not None:
            final = _play_forked(spec, compiled, episode.deps, params, plan.seed, fork, state, config)
        elif spec.play is not None:
            final = spec.play(compiled, episode, state, config)
        elif keep is not None:
            final = _invoke_kept(compiled, state, config, episode)
        else:
            final = compiled.invoke(state, config, context=episode)
        outcome = spec.outcome(final, params, plan.scenario)
        endings = spec.endings()
        if not isinstance(outcome.termination, str) or (endings and outcome.termination not in endings):
            ending = str(outcome.termination) if isinstance(outcome.termination, str) else outcome.termination
            raise ValueError(
                f"graph {spec.name} ended an episode with {ending!r}, which it does "
                f"not declare; declared: {', '.join(endings) or '(none: return a string)'}"
            )
        reason = str(outcome.termination)
        per_round, metrics = outcome.per_round, outcome.metrics
        if agreement is not None:
            per_round, metrics = with_embedding_agreement(outcome.transcript, per_round, metrics, agreement)
        body: dict[str, Any] = {
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
        graph_timings = outcome.timings
    except Exception as exc:  # noqa: BLE001 - one failing episode must not lose the others
        body = {"termination_reason": TerminationReason.ERROR.value, "error": _traceback(exc)}
    timings = {
        "episode_seconds": time.perf_counter() - t0,
        "node_seconds": {node: list(times) for node, times in meter.node_seconds.items()},
        **meter.runtime(),
        **graph_timings,
    }
    try:
        return EpisodeRecord(**head, **body, timings=timings, usage=meter.summary())
    except ValidationError as exc:  # the graph's outcome broke the record's schema: an error, not a crash
        return EpisodeRecord(
            **head,
            termination_reason=TerminationReason.ERROR.value,
            timings=timings,
            usage=meter.summary(),
            error=f"the episode's record is malformed: {exc}",
        )
