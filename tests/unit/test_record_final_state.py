"""A record's ``final_state`` and ``context`` (graphs used as they are): written only when there is one; the final
state stays on disk, out of what a summary keeps."""

from __future__ import annotations

from dialectica.sim.records import EpisodeRecord, as_written, slim

HEAD = {"graph": "g", "episode": 0, "seed": 1, "scenario": "s", "participants": "scripted", "termination_reason": "x"}


def test_a_native_record_has_neither_and_a_slim_record_drops_the_final_state_only():
    native = as_written(EpisodeRecord(**HEAD))
    assert "final_state" not in native and "context" not in native  # built-in graphs' lines stay as they were
    as_is = as_written(EpisodeRecord(**HEAD, final_state={"cart": ["tea"]}, context={"limit": 2}))
    assert as_is["final_state"] == {"cart": ["tea"]} and as_is["context"] == {"limit": 2}
    kept = slim(as_is)
    assert "final_state" not in kept and kept["context"] == {"limit": 2}
