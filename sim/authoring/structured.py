"""Replies with fields: the JSON schema a role is asked to follow, and reading a reply against it.

A node that needs fields passes its schema with the call (``response_format``); LLM backends
constrain generation with it (a llama.cpp grammar), scripted models ignore it and write prose.
So the node reads JSON first and falls back to its cue-phrase reader, and a reply that is neither
gets the node's documented default: never a crash.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # lazy: start-up (``dialectica.graph`` re-exports this module's functions)
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``response_format`` a call carries to ask for JSON following ``schema``."""
    return {"type": "json_object", "schema": schema}


def shape(schema: dict[str, Any]) -> Any:
    """A compact picture of what ``schema`` asks for, to show a model: ``{"vote": "support|oppose", ...}``."""
    if "enum" in schema:
        return "|".join(str(v) for v in schema["enum"])
    if schema.get("type") == "object":
        return {k: shape(v) for k, v in schema.get("properties", {}).items()}
    if schema.get("type") == "array":
        return [shape(item) for item in schema.get("prefixItems", [])] or [shape(schema.get("items", {}))]
    if "description" in schema:  # with a string's length cap, where the grammar would cut it off mid-sentence
        cap = f", at most {schema['maxLength']} characters" if "maxLength" in schema else ""
        return f"<{schema['description']}{cap}>"
    names = {"string": "text", "integer": "integer", "number": "number", "boolean": "true|false"}
    kind = schema.get("type")
    return names.get(kind, "value") if isinstance(kind, str) else "value"


def instruction(schema: dict[str, Any]) -> str:
    """The line that asks a model for JSON of ``schema``'s shape."""
    return "Reply with one JSON object only, shaped like: " + json.dumps(shape(schema))


def ask(model: BaseChatModel, messages: list[BaseMessage], schema: dict[str, Any]) -> str:
    """The text of ``model``'s reply to ``messages``, asked to follow ``schema``."""
    return str(model.invoke(messages, response_format=response_format(schema)).content)


def read_json(text: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The reply's object when it is JSON valid under ``schema``, else None."""
    import jsonschema  # here, not at start-up: only LLM replies are JSON

    try:
        value = json.loads(text)
        jsonschema.validate(value, schema)
    except (ValueError, jsonschema.ValidationError):
        return None
    return value if isinstance(value, dict) else None


def complete_items(text: str, key: str, item: dict[str, Any]) -> list[dict[str, Any]]:
    """The items of the array ``key`` of a JSON object reply that was cut off (the token cap reached mid-array),
    in order, each one kept only when it is whole and valid under ``item``: a judge cut short in its sixth
    opinion still gave five. [] when the reply is no such object."""
    import jsonschema  # here, not at start-up: only LLM replies are JSON
    from langchain_core.utils.json import parse_partial_json

    try:
        value = parse_partial_json(text)
    except ValueError:
        return []
    items = value.get(key) if isinstance(value, dict) else None
    valid = jsonschema.Draft202012Validator(item)
    return [x for x in items if isinstance(x, dict) and valid.is_valid(x)] if isinstance(items, list) else []
