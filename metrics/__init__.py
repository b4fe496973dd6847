"""Pure metrics over episode records: a metric factory holds options, the function it returns maps
records to named numbers."""

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any, NotRequired, TypedDict


class TerminationReason(StrEnum):
    """Why an episode ended: the harness's vocabulary (``dialectica.sim.authoring.termination`` gives each its
    meaning; a graph may declare its own endings besides). Rates are counts of these."""

    CONVERGED = "converged"
    MAX_ROUNDS = "max_rounds"
    MAX_TURNS = "max_turns"
    PARTIAL = "partial_report"
    BUDGET = "budget_exhausted"
    ERROR = "error"


class Record(TypedDict):
    """An episode record as a summary reads it (``episodes.jsonl``'s line less ``transcript`` and ``artifacts``;
    ``dialectica.sim.engine.records.EpisodeRecord`` documents each field). ``error`` and ``fork`` are there only
    when the episode raised or was replayed, ``context`` only for a graph used as it is."""

    schema_version: int
    graph: str
    episode: int
    seed: int
    scenario: str
    participants: str
    termination_reason: str
    converged: bool
    metrics: dict[str, float | None]
    per_round: list[dict[str, Any]]
    labels: dict[str, str]
    timings: dict[str, Any]
    usage: dict[str, Any]
    error: NotRequired[str]
    fork: NotRequired[dict[str, Any]]
    context: NotRequired[dict[str, Any]]


class FullRecord(Record):
    """The whole line: a ``Record`` plus the dialogue (``transcript``, turn by turn), text ``artifacts`` and, for a
    graph used as it is, its ``final_state``."""

    transcript: list[dict[str, Any]]
    artifacts: dict[str, str]
    final_state: NotRequired[dict[str, Any]]


MetricFn = Callable[[Sequence[Record]], dict[str, float]]
Metric = Callable[[], MetricFn]


def converged(record: Mapping[str, Any]) -> bool:
    """Whether an episode converged: its record's ``converged`` (an ending its graph counts as convergence);
    records written before that field converged when they ended ``converged``."""
    return bool(record.get("converged", record["termination_reason"] == "converged"))
