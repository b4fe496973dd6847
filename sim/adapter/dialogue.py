"""One dialogue between a simulated user and a graph used as it is.

Each user turn is one run of the graph on its own thread (the harness's in-memory checkpointer keeps the
graph's state between turns): a graph on LangGraph's ``messages`` convention gets ``{"messages": [turn]}``;
a graph waiting in ``interrupt()`` gets ``Command(resume=turn)``. The graph's reply is every new
``AIMessage`` with text, and the value of a pending interrupt.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.types import Command

from dialectica.sim.adapter.users import Speaker, _text
from dialectica.sim.authoring.params import ConfigError

USER, GRAPH, TURNS = "user_stopped", "graph_ended", "max_turns"  # who ended the dialogue
MET = "goal_met"  # ``stop`` found the user's goal met after one of the graph's replies


@dataclass
class Dialogue:
    """What one dialogue left.

    Attributes:
        messages: The conversation as the user saw it (``HumanMessage``: the user, ``AIMessage``: the graph).
        transcript: Turns for the record: the user's, the graph's, and its tool calls and results.
        ended_by: ``user_stopped``, ``graph_ended``, ``max_turns`` or ``goal_met``.
        state: The graph's final state.
        turns: The user's turns.
        path: The nodes the graph ran, in order, over all its runs.
    """

    messages: list[BaseMessage] = field(default_factory=list)
    transcript: list[dict[str, Any]] = field(default_factory=list)
    ended_by: str = TURNS
    state: dict[str, Any] = field(default_factory=dict)
    turns: int = 0
    path: list[str] = field(default_factory=list)

    def tool_calls(self) -> list[dict[str, Any]]:
        """The graph's tool calls in order: ``name``, ``args``, and ``error`` when its result was a tool error."""
        calls = [{"name": t["speaker"], "args": t.get("args", {})} for t in self.transcript if t["role"] == "tool_call"]
        results = [t for t in self.transcript if t["role"] == "tool"]
        for call, result in zip(calls, results, strict=False):  # results answer calls in order
            call["error"] = bool(result.get("error"))
        return calls


def interrupt_text(value: Any) -> str:
    """What an ``interrupt(value)`` says to the user: the text, or a mapping's question."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("question", "message", "prompt", "text", "content"):
            if isinstance(value.get(key), str):
                return str(value[key])
    return json.dumps(value, default=str)


class _Reader:
    """Turns the graph's state after a run into new transcript lines and the user's view."""

    def __init__(self, dialogue: Dialogue) -> None:
        self.dialogue, self.seen = dialogue, 0

    def read(self, snapshot: Any, round_: int) -> bool:
        """Adds what the graph said since the last read; True when it waits in an interrupt."""
        values = snapshot.values if isinstance(snapshot.values, dict) else {}
        messages = list(values.get("messages") or [])
        for message in messages[self.seen :]:
            self._add(message, round_)
        self.seen = len(messages)
        pending = [i.value for i in getattr(snapshot, "interrupts", ()) or ()]
        for value in pending:
            text = interrupt_text(value)
            self.dialogue.messages.append(AIMessage(text))
            self.dialogue.transcript.append({"round": round_, "role": "assistant", "speaker": "interrupt", "text": text})
        self.dialogue.state = values
        return bool(pending)

    def _add(self, message: BaseMessage, round_: int) -> None:
        """The graph's messages; the user's own are on record already, and system prompts are the graph's."""
        text = _text(message).strip()
        if message.type == "ai":
            for call in getattr(message, "tool_calls", None) or []:
                args = json.dumps(call.get("args", {}), default=str, sort_keys=True)
                self.dialogue.transcript.append(
                    {
                        "round": round_,
                        "role": "tool_call",
                        "speaker": str(call.get("name")),
                        "text": f"{call.get('name')}({args})",
                        "args": json.loads(args),  # as JSON keeps them: what the record and trajectory metrics read
                    }
                )
            if text:
                self.dialogue.messages.append(AIMessage(text))
                self.dialogue.transcript.append(
                    {"round": round_, "role": "assistant", "speaker": message.name or "assistant", "text": text}
                )
        elif message.type == "tool":
            turn = {"round": round_, "role": "tool", "speaker": str(message.name or "tool"), "text": text}
            if getattr(message, "status", "success") == "error":
                turn["error"] = True
            self.dialogue.transcript.append(turn)


def converse(
    app: Any,
    speaker: Speaker,
    *,
    max_turns: int,
    config: dict[str, Any],
    context: Callable[[int], Any] = lambda turn: None,
    start: dict[str, Any] | None = None,
    stop: Callable[[Dialogue], bool] | None = None,
) -> Dialogue:
    """Plays one dialogue; ``app`` has a checkpointer (the harness's), ``config`` the run's callbacks and limits.

    Args:
        context: ``context(t)``: the graph's runtime context for its run before the user's turn ``t + 1`` (``0``:
            the start and the first turn); None for a graph without one.
        start: The scenario's ``input``: a messages graph gets it with the user's first turn; any other graph
            starts from it and asks the user with ``interrupt()``.
        stop: ``stop(dialogue)`` after each of the graph's replies; True ends the dialogue there (``goal_met``).
    """
    thread = str(uuid.uuid4())  # the thread lives only in this dialogue's checkpointer; records never see it
    cfg = {**config, "configurable": {**config.get("configurable", {}), "thread_id": thread}}
    dialogue = Dialogue()
    session = _Session(app, cfg, context, dialogue, _Reader(dialogue))
    takes_messages = "messages" in getattr(app, "channels", {})
    try:
        if not takes_messages and not _opened(session, start, stop):
            return _closed(app, cfg, dialogue)
        _user_turns(session, speaker, max_turns, takes_messages, start, stop)
    except Exception as exc:
        with contextlib.suppress(Exception):  # what the graph said before it raised (its last checkpoint)
            session.read(dialogue.turns)
        keep_transcript(exc, dialogue)
        with contextlib.suppress(Exception):
            _closed(app, cfg, dialogue)
        raise
    return _closed(app, cfg, dialogue)


def keep_transcript(exc: BaseException, dialogue: Dialogue) -> None:
    """Puts the turns played before ``exc`` on it, for the episode's error record (``transcript``)."""
    with contextlib.suppress(AttributeError):  # an exception that takes no attributes: the record has none
        exc.transcript = list(dialogue.transcript)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class _Session:
    """One dialogue's graph on its own thread: runs it and reads what it said."""

    app: Any
    cfg: dict[str, Any]
    context: Callable[[int], Any]
    dialogue: Dialogue
    reader: _Reader

    def run(self, value: Any, turn: int) -> None:
        """One run of the graph, streamed by node so that its path is kept."""
        given = self.context(turn)
        kwargs = {"context": given} if given is not None else {}
        for update in self.app.stream(value, self.cfg, stream_mode="updates", **kwargs):
            self.dialogue.path += [node for node in update if not node.startswith("__")]  # not __interrupt__

    def read(self, turn: int) -> bool:
        """Adds what the graph said to the dialogue; True when it waits in an interrupt."""
        return self.reader.read(self.app.get_state(self.cfg), turn)


def _opened(session: _Session, start: dict[str, Any] | None, stop: Callable[[Dialogue], bool] | None) -> bool:
    """Starts a graph without ``messages`` from the scenario's input; True when it then waits for the user,
    False when the dialogue already ended (its ``ended_by`` set)."""
    if start is None:
        raise ConfigError(
            "the graph's state has no 'messages' key, so the user cannot speak first: give each "
            "scenario an 'input' (the graph's input state), and have the graph ask with interrupt()"
        )
    session.run(start, 0)
    waiting = session.read(0)
    if stop is not None and stop(session.dialogue):
        session.dialogue.ended_by = MET
        return False
    if not waiting:
        session.dialogue.ended_by = GRAPH
        return False
    return True


def _user_turns(
    session: _Session,
    speaker: Speaker,
    max_turns: int,
    takes_messages: bool,
    start: dict[str, Any] | None,
    stop: Callable[[Dialogue], bool] | None,
) -> None:
    """The user's turns, each answered by one run of the graph, until the user, ``stop``, the graph or the turn
    limit ends the dialogue."""
    dialogue = session.dialogue
    waiting = not takes_messages  # a graph without messages was opened and waits for the user
    extra = dict(start or {}) if takes_messages else {}  # a messages graph gets the scenario's input with the first turn
    for turn in range(1, max_turns + 1):
        text = speaker(list(dialogue.messages))
        if text is None:
            dialogue.ended_by = USER
            break
        dialogue.turns = turn
        dialogue.messages.append(HumanMessage(text))
        dialogue.transcript.append({"round": turn, "role": "user", "speaker": "user", "text": text})
        if waiting:
            session.run(Command(resume=text), turn - 1)
        else:
            session.run({**extra, "messages": [HumanMessage(text)]}, turn - 1)
            extra = {}
        waiting = session.read(turn)
        if stop is not None and stop(dialogue):
            dialogue.ended_by = MET
            break
        if not waiting and not takes_messages:
            dialogue.ended_by = GRAPH
            break


def _closed(app: Any, cfg: dict[str, Any], dialogue: Dialogue) -> Dialogue:
    """Frees the dialogue's thread: memory does not grow with episodes."""
    app.checkpointer.delete_thread(cfg["configurable"]["thread_id"])
    return dialogue
