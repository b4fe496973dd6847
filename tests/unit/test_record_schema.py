"""One record schema: the TypedDicts the pure metrics read are generated from the pydantic model the engine
writes, and a written line has exactly the fields they declare."""

from __future__ import annotations

import json
import typing
from pathlib import Path

from dialectica.metrics.record import FullRecord, Record
from dialectica.sim.records import OPTIONAL, SLIM_DROP, EpisodeRecord, Turn, slim, to_line, typed_reader_source

ROOT = Path(__file__).resolve().parents[2]


def test_the_readers_schema_is_the_one_generated_from_the_writers_model():
    assert (ROOT / "metrics" / "record.py").read_text() == typed_reader_source(), (
        "metrics/record.py is stale: regenerate it from EpisodeRecord (see typed_reader_source)"
    )


def test_a_written_line_has_the_fields_the_reader_declares():
    record = EpisodeRecord(
        graph="g",
        episode=0,
        seed=1,
        scenario="s",
        participants="scripted",
        termination_reason="converged",
        transcript=[Turn(round=0, role="user", speaker="u", text="hi")],
    )
    line = json.loads(to_line(record))
    full = typing.get_type_hints(FullRecord)
    required = set(full) - set(OPTIONAL)
    assert required <= set(line) <= set(full)
    assert set(slim(line)) <= set(typing.get_type_hints(Record)) and not set(slim(line)) & set(SLIM_DROP)
