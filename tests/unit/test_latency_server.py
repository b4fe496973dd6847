"""The latency server's replies are valid under the schema a request sends."""

from __future__ import annotations

import jsonschema

from dialectica.sim.dev.latency_server import instance

SCHEMA = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "minimum": 1, "maximum": 3},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "count": {"type": "integer", "minimum": 2},
        "side": {"enum": ["pro", "con"]},
        "items": {"type": "array", "minItems": 2, "items": {"type": "integer", "minimum": 0, "maximum": 0}},
        "pair": {"type": "array", "prefixItems": [{"type": "boolean"}, {"type": "string", "maxLength": 5}]},
    },
    "required": ["score", "confidence", "count", "side", "items", "pair"],
}


def test_an_instance_is_valid_under_its_schema_bounds_included() -> None:
    for pick in range(256):  # a request's digest picks one of 256
        jsonschema.validate(instance(SCHEMA, pick), SCHEMA)


def test_picks_spread_over_a_bounded_range() -> None:
    assert {instance(SCHEMA, pick)["score"] for pick in range(10)} == {1, 2, 3}
