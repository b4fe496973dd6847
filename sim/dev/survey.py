"""Which small GGUF model makes the best surrogate: the harness's own prompts through each model's own chat template.

``survey_prompts.jsonl`` holds requests captured from one surrogate episode of each graph (persona and system-role
prompts, free text and JSON schema). Each model answers every prompt as ``llm=llamacpp`` calls it (the system prompt
last by default; ``system=first`` leaves it first, ``system=remind`` first, its first and last sentences again at the end;
the schema's instruction line and grammar, temperature 0.8, top_p 0.95, a fixed seed per prompt) on a fresh KV cache;
one markdown row per model reports reply quality and llama.cpp's own timings. ``replies=FILE`` keeps every reply with
its timings, and ``scores=FILE`` scores such a file again without running a model::

    python -m dialectica.sim.dev.survey gemma=PATH smollm2=PATH [prompts=FILE] [replies=OUT.jsonl] [system=first|last|remind]
    python -m dialectica.sim.dev.survey scores=OUT.jsonl [prompts=FILE]
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from dialectica.sim.authoring.structured import instruction, read_json, shape
from dialectica.sim.llm.gguf import read_metadata
from dialectica.sim.llm.llamacpp import Turns, gemma, grammar, remind, system_last, template_format

PROMPTS = Path(__file__).with_name("survey_prompts.jsonl")
AI_PHRASES = ("as an ai", "language model", "i'm an assistant", "i am an assistant", "i'm an ai", "i am an ai")
LABELS = (
    "user|assistant|model|system|human|ai|interviewer|interviewee|expert|learner|student|teacher|tutor|moderator"
    "|facilitator|judge|member|chair|participant|answer|question|response|reply|your answer|your reply"
)
COLUMNS = (
    "model",
    "MB",
    "template",
    "schema valid",
    "placeholder JSON",
    "echo",
    "in character",
    "empty",
    "prompt tok/s",
    "gen tok/s",
    "gen tok/s (wall)",
    "reply tok",
    "s/call",
    "total s",
)
Format = Callable[[Turns], tuple[str, list[str]]]


def common_run(reply: str, prompt: str) -> int:
    """Length of the longest stretch of ``reply`` that also occurs in ``prompt`` (binary search on the length)."""
    low, high = 0, len(reply)
    while low < high:
        mid = (low + high + 1) // 2
        if any(reply[i : i + mid] in prompt for i in range(len(reply) - mid + 1)):
            low = mid
        else:
            high = mid - 1
    return low


def is_echo(reply: str, prompt: str) -> bool:
    """The reply copies the prompt: 60 characters in a row, or half of a reply of 16 characters or more."""
    text = reply.strip()
    run = common_run(text, prompt)
    return run >= 60 or (len(text) >= 16 and run >= len(text) / 2)


def strings(value: Any) -> Iterator[str]:
    """Every string value in a JSON value, keys aside."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict | list):
        for v in value.values() if isinstance(value, dict) else value:
            yield from strings(v)


def placeholder(value: dict[str, Any], schema: dict[str, Any]) -> bool:
    """A string field left empty or as the instruction line shows the shape: ``<...>``, ``text``, ``a|b|c``."""
    shown = {s for s in strings(shape(schema)) if "|" in s or s.startswith("<")}
    return any(
        not s.strip()
        or s.strip() in shown
        or s.strip().startswith("<")
        or s.strip().lower() in {"text", "value"}
        or any(p in s or (len(s.strip()) >= 8 and s.strip() in p) for p in shown if p.startswith("<"))
        for s in strings(value)
    )


def in_character(text: str, prompt: str, role: str) -> bool:
    """Said in the persona's voice: something said, no AI talk, no speaker label up front, not copied from the prompt."""
    lowered = text.strip().lower()
    label = re.match(rf"\W*({LABELS}|{re.escape(role.lower())})\s*:", lowered)
    return bool(lowered) and not any(p in lowered for p in AI_PHRASES) and not label and not is_echo(text, prompt)


def turns_of(prompt: dict[str, Any]) -> Turns:
    """The request's turns, with the schema's instruction line on the last turn as the harness sends it."""
    turns: Turns = tuple((r, c) for r, c in prompt["messages"])
    schema = prompt["schema"]
    if schema is not None and instruction(schema) not in turns[-1][1]:
        turns = (*turns[:-1], (turns[-1][0], f"{turns[-1][1]}\n{instruction(schema)}"))
    return turns


def chat_format(path: Path) -> tuple[str, Format]:
    """The model's own chat template from its GGUF metadata (as ``llm.chat_format=auto`` renders it), or Gemma's
    turn format when it has none."""

    if not read_metadata(path).get("tokenizer.chat_template"):
        return "none: gemma turns", gemma
    return "own", template_format(path, str(path))


ARRANGE: dict[str, Callable[[Turns], Turns]] = {"last": system_last, "first": lambda turns: turns, "remind": remind}


def answers(
    name: str, path: Path, prompts: list[dict[str, Any]], arrange: Callable[[Turns], Turns]
) -> Iterator[dict[str, Any]]:
    """One model's reply to each prompt, with llama.cpp's timings of that call."""
    import llama_cpp

    start = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=4096, n_threads=2, n_threads_batch=2, seed=0, verbose=False)
    template, render = chat_format(path)
    for i, p in enumerate(prompts):
        turns = turns_of(p)
        prompt, stop = render(arrange(turns))
        rules = None if p["schema"] is None else grammar(p["schema"])  # as the backend builds it
        llm.reset()
        llama_cpp.llama_perf_context_reset(llm._ctx.ctx)
        t0 = time.perf_counter()
        out: Any = llm.create_completion(
            prompt, max_tokens=p["max_tokens"], temperature=0.8, top_p=0.95, seed=1000 + i, stop=stop, grammar=rules
        )
        wall = time.perf_counter() - t0
        perf = llama_cpp.llama_perf_context(llm._ctx.ctx)
        yield {
            "model": name,
            "MB": round(path.stat().st_size / 1e6),
            "template": template,
            "i": i,
            "graph": p["graph"],
            "role": p["role"],
            "reply": out["choices"][0]["text"],
            "tokens": out["usage"]["completion_tokens"],
            "p_tok": perf.n_p_eval,
            "p_ms": perf.t_p_eval_ms,
            "g_tok": perf.n_eval,
            "g_ms": perf.t_eval_ms,
            "wall": wall,
            "elapsed": time.perf_counter() - start,
        }


def score(records: list[dict[str, Any]], prompts: list[dict[str, Any]]) -> dict[str, str]:
    """One model's table row: quality shares over the prompts they apply to, and speed."""
    n: dict[str, float] = {}

    def add(key: str, value: float) -> None:
        n[key] = n.get(key, 0.0) + value

    for r in records:
        p = prompts[r["i"]]
        schema, reply, source = p["schema"], r["reply"], "\n".join(c for _, c in turns_of(p))
        value = read_json(reply, schema) if schema is not None else None
        add("schema", schema is not None)
        add("valid", value is not None)
        add("placeholder", value is not None and placeholder(value, schema))
        add("free", schema is None)
        add("echo", schema is None and is_echo(reply, source))
        add("persona", schema is None and p["persona"])  # a persona's JSON replies count under schema and placeholder
        add("character", schema is None and p["persona"] and in_character(reply, source, p["role"]))
        for key in ("p_tok", "p_ms", "g_tok", "g_ms", "wall", "tokens"):
            add(key, r[key])
        add("empty", not reply.strip())
        add("g_wall", max(r["wall"] - r["p_ms"] / 1000, 1e-9))

    def share(k: str, of: str) -> str:
        return f"{n.get(k, 0) / n[of]:.0%} ({n.get(k, 0):.0f}/{n[of]:.0f})" if n.get(of) else "-"

    total, first = len(records), records[0]
    return {
        "model": first["model"],
        "MB": str(first["MB"]),
        "template": first["template"],
        "schema valid": share("valid", "schema"),
        "placeholder JSON": share("placeholder", "schema"),
        "echo": share("echo", "free"),
        "in character": share("character", "persona"),
        "empty": f"{n['empty'] / total:.0%}",
        "prompt tok/s": f"{1000 * n['p_tok'] / max(n['p_ms'], 1e-9):.0f}",
        "gen tok/s": f"{1000 * n['g_tok'] / max(n['g_ms'], 1e-9):.1f}",
        "gen tok/s (wall)": f"{n['tokens'] / n['g_wall']:.1f}",
        "reply tok": f"{n['tokens'] / total:.0f}",
        "s/call": f"{n['wall'] / total:.1f}",
        "total s": f"{max(r['elapsed'] for r in records):.0f}",
    }


def main(argv: list[str] | None = None) -> None:
    """``NAME=PATH`` per model, surveyed one after another (one model in memory at a time); a markdown row each."""
    options = {"prompts": str(PROMPTS), "replies": "", "scores": "", "system": "last"}
    models: dict[str, Path] = {}
    for arg in sys.argv[1:] if argv is None else argv:
        key, sep, value = arg.partition("=")
        if not sep:
            raise SystemExit(f"expected NAME=PATH or an option ({', '.join(options)}=...), got {arg!r}")
        if key in options:
            options[key] = value
        else:
            models[key] = Path(value).expanduser()
    if not models and not options["scores"]:
        raise SystemExit(__doc__)
    prompts = [json.loads(line) for line in Path(options["prompts"]).read_text().splitlines() if line.strip()]
    if options["system"] not in ARRANGE:
        raise SystemExit(f"system={options['system']!r}; valid choices: {', '.join(ARRANGE)}")
    print(
        f"{len(prompts)} prompts, system={options['system']}\n\n| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS),
        flush=True,
    )
    saved = [json.loads(line) for line in Path(options["scores"]).read_text().splitlines()] if options["scores"] else []
    for name in dict.fromkeys(r["model"] for r in saved):
        print("| " + " | ".join(score([r for r in saved if r["model"] == name], prompts)[c] for c in COLUMNS) + " |")
    for name, path in models.items():
        records = []
        for record in answers(name, path, prompts, ARRANGE[options["system"]]):
            records.append(record)
            if options["replies"]:
                with Path(options["replies"]).open("a") as log:
                    log.write(json.dumps(record) + "\n")
        print("| " + " | ".join(score(records, prompts)[c] for c in COLUMNS) + " |", flush=True)


if __name__ == "__main__":
    main()
