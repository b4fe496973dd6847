"""An OpenAI-compatible server with a fixed latency, for measuring how the harness talks to a server.

``python -m dialectica.sim.dev.latency_server --port 8765 --latency 0.3`` serves ``/v1/models`` and
``/v1/chat/completions`` on 127.0.0.1. Each reply comes after ``--latency`` seconds (an asyncio sleep, so
any number wait at once, as on a server with spare capacity) and is a function of the request alone: a
sentence of the last message, or for a JSON-schema request the smallest object valid under it. So a run
against it writes the same records whatever the order of its requests. With ``--busy-every K``, every
K-th new request is answered 429 with ``Retry-After``, as by a server that is shedding load; the same request
sent again is served, so a call meets at most one 429 however the requests of episodes in flight interleave.

It is a benchmark and test instrument (``dialectica bench --server``), not a model.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI, Request  # at module level: FastAPI reads the handlers' annotations from here
from fastapi.responses import JSONResponse


def instance(schema: dict[str, Any], pick: int) -> Any:
    """A small value valid under ``schema`` (the subset of JSON Schema the graphs use); ``pick`` chooses
    among enum values."""
    if "enum" in schema:
        return schema["enum"][pick % len(schema["enum"])]
    kind = schema.get("type")
    if kind == "object":
        return {k: instance(v, pick + i) for i, (k, v) in enumerate(schema.get("properties", {}).items())}
    if kind == "array" and "prefixItems" in schema:  # a tuple: one value per position
        return [instance(item, pick + i) for i, item in enumerate(schema["prefixItems"])]
    if kind == "array":
        return [instance(schema.get("items", {}), pick + i) for i in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        low = schema.get("minimum", 0)
        span = int(schema.get("maximum", low + 6) - low) + 1  # a bounded field stays inside its bounds
        return low + pick % max(span, 1)
    if kind == "boolean":
        return pick % 2 == 0
    return "" if "pattern" in schema else "a short answer"[: schema.get("maxLength", 40)]


def reply(body: dict[str, Any]) -> str:
    """The reply to a chat-completions request body, a function of the messages and seed alone."""
    digest = hashlib.sha256(json.dumps([body.get("messages"), body.get("seed")], sort_keys=True).encode()).digest()
    pick = digest[0]
    schema = (body.get("response_format") or {}).get("schema")
    if schema is not None:
        return json.dumps(instance(schema, pick))
    last = str((body.get("messages") or [{}])[-1].get("content", ""))
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", last) if 20 <= len(s) <= 200] or ["I am not sure."]
    return sentences[pick % len(sentences)]


def app(latency_s: float, busy_every: int = 0) -> FastAPI:
    server = FastAPI()
    counter = itertools.count(1)
    refused: set[str] = set()  # requests answered 429 once: their retry is served, so no call's fate is left to chance

    @server.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": "latency", "object": "model", "owned_by": "dialectica"}]}

    @server.post("/v1/chat/completions")
    async def complete(request: Request) -> Any:
        body = await request.json()
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        if busy_every and key not in refused and next(counter) % busy_every == 0:
            refused.add(key)
            return JSONResponse(
                {"error": {"message": "busy", "type": "rate_limit"}}, status_code=429, headers={"Retry-After": "0.05"}
            )
        await asyncio.sleep(latency_s)
        text = reply(body)
        prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        return {
            "id": "chatcmpl-latency",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": len(text.split()),
                "total_tokens": prompt + len(text.split()),
            },
        }

    return server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(latency_s: float, busy_every: int = 0, start_timeout_s: float = 60.0) -> Iterator[str]:
    """Runs the server in a child process on a free loopback port for the ``with`` block; yields its ``/v1`` URL."""
    import httpx

    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dialectica.sim.dev.latency_server",
            "--port",
            str(port),
            "--latency",
            str(latency_s),
            "--busy-every",
            str(busy_every),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(int(start_timeout_s / 0.1)):
            if proc.poll() is not None:
                raise RuntimeError(f"the latency server exited with code {proc.returncode}")
            try:
                if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise RuntimeError(f"the latency server did not answer on {url}")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m dialectica.sim.dev.latency_server", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.3, help="seconds before each reply")
    parser.add_argument("--busy-every", type=int, default=0, help="answer every K-th request 429 (0: never)")
    args = parser.parse_args(argv)
    import uvicorn

    uvicorn.run(app(args.latency, args.busy_every), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
