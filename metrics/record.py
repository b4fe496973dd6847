"""The episode record as the pure metrics read it. GENERATED from ``dialectica.sim.records.EpisodeRecord``
(``typed_reader_source``; ``tests/unit/test_record_schema.py`` checks it): edit the model, not this file."""

from typing import Any, NotRequired, TypedDict


class Record(TypedDict):
    """An episode record as a summary reads it: ``episodes.jsonl``'s line less its transcript, artifacts and final
    state (``EpisodeRecord`` documents each field). An optional field is there only when it has a value."""

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
    """The whole line: a ``Record`` plus the dialogue, text artifacts and a graph's final state."""

    transcript: list[dict[str, Any]]
    artifacts: dict[str, str]
    final_state: NotRequired[dict[str, Any]]
