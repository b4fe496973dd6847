"""Each episode's LangGraph checkpoints kept on disk, and a replay's fork restored from them.

``checkpoints=true`` (or a list of episode indices) keeps, for each chosen episode, every checkpoint its graph
wrote, in ``RUN/checkpoints.sqlite`` (LangGraph's ``SqliteSaver``, WAL), one thread per episode named
``<graph>/<episode>``. An episode runs on an in-memory :class:`Keeper` as before; when it frees its thread (the
end of the episode) the thread is copied to the file, so nothing is written while it runs and nothing for the
episodes not chosen. LangGraph reads the file back as it is (``get_state_history``).

``dialectica replay`` of a run that kept an episode's checkpoints continues its fork from the recorded state:
the prefix is played again for the cast's seeded draws, then the state at the fork is replaced by the recorded
checkpoint marked with the fork's turn, so the fork shares the original's history even where a model's replies cannot be
reproduced.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.base.id import uuid6
from langgraph.checkpoint.memory import InMemorySaver

FILE = "checkpoints.sqlite"


def thread_of(graph: str, episode: int) -> str:
    """The thread that holds one episode's checkpoints in ``checkpoints.sqlite``."""
    return f"{graph}/{episode}"


class Store:
    """One run's ``checkpoints.sqlite``, shared by the episodes in flight (LangGraph's saver holds a lock)."""

    def __init__(self, path: Path) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
        self.saver.setup()  # WAL: a reader never blocks the episodes writing
        self.saver.conn.execute("PRAGMA synchronous=NORMAL")  # WAL's safe setting: no fsync on every checkpoint

    def keep(self, thread: str, tuples: list[CheckpointTuple]) -> None:
        """Writes a thread's checkpoints (oldest first) under ``thread``, with their parents and pending writes."""
        for t in tuples:
            ns = t.config["configurable"].get("checkpoint_ns", "")
            parent = (t.parent_config or {}).get("configurable", {}).get("checkpoint_id")
            target: RunnableConfig = {"configurable": {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": parent}}
            saved = self.saver.put(target, t.checkpoint, t.metadata, t.checkpoint["channel_versions"])
            for task_id, channel, value in t.pending_writes or []:
                self.saver.put_writes(saved, [(channel, value)], task_id)

    def tuples(self, thread: str) -> list[CheckpointTuple]:
        """A thread's checkpoints, oldest first."""
        return list(reversed(list(self.saver.list({"configurable": {"thread_id": thread}}))))

    def close(self) -> None:
        self.saver.conn.close()


@dataclass
class Keeping:
    """What one episode keeps and restores: its thread in the store, and the original's state at the fork.

    Each kept thread marks its turns: the checkpoint at which the episode had completed ``t`` turns carries
    ``turn: t`` in its metadata (from ``turns(values)`` for a graph run in one invoke, from ``at_turn(t)`` for a
    graph that drives its turns in ``play``), which is where a replay's fork after turn ``t`` restores.
    """

    thread: str
    store: Store | None = None  # where its checkpoints go; None: it keeps nothing
    source: Store | None = None  # a replay's original run, which may have kept this episode's checkpoints
    turns: Callable[[dict[str, Any]], int] | None = None  # the graph's turns, for a graph run in one invoke
    live: str | None = None  # the in-memory thread the episode runs on (seen at its first checkpoint)
    saver: Keeper | None = None  # the checkpointer that holds it
    marks: dict[str, int] = field(default_factory=dict)  # checkpoint id -> the turns completed there
    restored: bool = False


_EPISODE: ContextVar[Keeping | None] = ContextVar("dialectica_keeping", default=None)


@contextmanager
def keeping(keep: Keeping | None) -> Iterator[Keeping | None]:
    """Runs an episode with ``keep`` as the checkpoints' destination and source."""
    token = _EPISODE.set(keep)
    try:
        yield keep
    finally:
        _EPISODE.reset(token)


def _head(saver: InMemorySaver, thread: str) -> CheckpointTuple | None:
    return saver.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}})


class Keeper(InMemorySaver):
    """An in-memory checkpointer that copies an episode's thread to its run's store when the thread is freed."""

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        keep = _EPISODE.get()
        if keep is not None and keep.live is None and not config["configurable"].get("checkpoint_ns"):
            keep.live, keep.saver = str(config["configurable"]["thread_id"]), self
        return super().put(config, checkpoint, metadata, new_versions)

    def delete_thread(self, thread_id: str) -> None:
        keep = _EPISODE.get()
        if keep is not None and keep.store is not None and str(thread_id) == keep.live:
            tuples = list(reversed(list(self.list({"configurable": {"thread_id": thread_id}}))))
            keep.store.keep(keep.thread, [_marked(t, keep) for t in tuples])
        super().delete_thread(thread_id)

    def restore(self, keep: Keeping, turn: int) -> bool:
        """Puts the original's checkpoint after ``turn`` turns on the live thread as its newest (LangGraph goes on
        from the newest). False where the original kept no such checkpoint."""
        head = _head(self, keep.live) if keep.source is not None and keep.live is not None else None
        if head is None or keep.source is None or keep.restored:
            return False
        recorded = next((t for t in keep.source.tuples(keep.thread) if _turn_of(t) >= turn), None)
        if recorded is None or recorded.config["configurable"].get("checkpoint_ns"):
            return False
        checkpoint = {**recorded.checkpoint, "id": str(uuid6(clock_seq=turn))}
        saved = self.put(head.config, checkpoint, recorded.metadata, recorded.checkpoint["channel_versions"])
        for task_id, channel, value in recorded.pending_writes or []:
            self.put_writes(saved, [(channel, value)], task_id)
        keep.restored = True
        return True


def _marked(t: CheckpointTuple, keep: Keeping) -> CheckpointTuple:
    """The checkpoint with ``turn`` in its metadata where the episode completed a turn there."""
    if keep.turns is not None and not t.config["configurable"].get("checkpoint_ns"):
        done = keep.turns(t.checkpoint["channel_values"])
        if done > max(keep.marks.values(), default=-1):
            keep.marks[t.checkpoint["id"]] = done
    turn = keep.marks.get(t.checkpoint["id"])
    return t if turn is None else t._replace(metadata=cast(Any, {**t.metadata, "turn": turn}))


def _turn_of(t: CheckpointTuple) -> int:
    """The turns completed at a kept checkpoint, where it marks them (else -1)."""
    turn = dict(t.metadata).get("turn")
    return turn if isinstance(turn, int) else -1


def at_turn(turn: int, fork: int | None = None) -> None:
    """A graph driving its turns in ``play`` is about to play turn ``turn + 1``: the live thread's newest
    checkpoint is where ``turn`` turns are complete. At a replay's ``fork``, it becomes the original's."""
    keep = _EPISODE.get()
    if keep is None or keep.saver is None or keep.live is None:
        return
    if turn == fork:
        keep.saver.restore(keep, turn)
    head = _head(keep.saver, keep.live)
    if head is not None and turn not in keep.marks.values():
        keep.marks[head.checkpoint["id"]] = turn


def restore_now(turn: int) -> bool:
    """At a fork after ``turn`` turns, for a graph run in one invoke: the live thread continues from the
    original's recorded state, where the original kept it."""
    keep = _EPISODE.get()
    return keep is not None and keep.saver is not None and keep.saver.restore(keep, turn)


def open_source(run: str | Path) -> Store | None:
    """A finished run's checkpoints, when it kept any."""
    path = Path(run) / FILE
    return Store(path) if path.is_file() else None
