"""``llm=llamacpp``: a GGUF model run in process by llama-cpp-python, offline.

The model loads once per process and is shared by every role and episode. One call computes at a time on the
machine (``machine.machine_lock``): llama.cpp contexts are not thread-safe, the tribunal's judges run in threads,
and two processes computing at once on the same cores slow each other many times over. Prompt evaluation
dominates on a CPU, and llama.cpp skips the prefix a prompt shares with what its context holds. So the model
keeps up to ``llm.contexts`` contexts (one set of weights; each context its own KV cache), and a call goes to the
context that holds the longest prefix of its prompt (``pick_context``): each speaker's growing dialogue stays in
a context of its own and is evaluated once. llama.cpp's numbers for a token depend on the batch it was evaluated
in, so a prompt is always evaluated in the same batches of ``llm.n_batch`` tokens from its start, and only whole
batches are taken from a context (``whole_batches``): a reply does not depend on what the context held before.
By default (``system_last``) the system prompt (who is speaking) goes after the dialogue, where small models keep to
it better; first, it would be cached with the dialogue;
``remind`` keeps it first and repeats its first and last sentences after the dialogue.
Structured replies are constrained by a grammar built from the JSON schema; a prompt too long for the context loses
its oldest exchanges, then its middle. A call is bounded by its work (``max_tokens``, ``n_ctx``), not by wall time
(``timeout_s`` is the server's): a timed-out call would be retried with the next seed, so a busy or paused machine
would change the replies.
"""

from __future__ import annotations

import atexit
import json
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from dialectica.metrics.text import sentences
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.llm.backends import Reply, Request
from dialectica.sim.llm.gguf import model_file, read_metadata
from dialectica.sim.llm.machine import machine_lock

Turns = tuple[tuple[str, str], ...]


def gemma(messages: Turns) -> tuple[str, list[str]]:
    """Gemma's turn format; as in Gemma 3's own template, the system prompt opens the first user turn."""
    system = "\n\n".join(c for r, c in messages if r == "system")
    turns, prompt = [(r, c) for r, c in messages if r != "system"], ""
    if system:
        turns = [("user", f"{system}\n\n{turns[0][1]}" if turns and turns[0][0] == "user" else system)] + (
            turns[1:] if turns and turns[0][0] == "user" else turns
        )
    for role, content in turns:
        prompt += f"<start_of_turn>{'model' if role == 'assistant' else 'user'}\n{content}<end_of_turn>\n"
    return prompt + "<start_of_turn>model\n", ["<end_of_turn>", "<start_of_turn>"]


def chatml(messages: Turns) -> tuple[str, list[str]]:
    """ChatML (Qwen, many fine-tunes): system, user and assistant turns as they are."""
    prompt = "".join(f"<|im_start|>{role}\n{content}<|im_end|>\n" for role, content in messages)
    return prompt + "<|im_start|>assistant\n", ["<|im_end|>", "<|im_start|>"]


Format = Callable[[Turns], tuple[str, list[str]]]
AUTO = "auto"  # the chat template in the GGUF's own metadata
CHAT_FORMATS: dict[str, Format] = {"gemma": gemma, "chatml": chatml}


@lru_cache(maxsize=4)
def _gguf_template(path: str) -> tuple[str, str, str] | None:
    """(template, eos, bos) from the file's ``tokenizer.chat_template`` metadata, or None when it has no template.
    BOS is left empty where llama.cpp adds it itself (it would otherwise come twice)."""
    meta = read_metadata(Path(path))
    template = meta.get("tokenizer.chat_template")
    if not template:
        return None
    tokens = meta.get("tokenizer.ggml.tokens", [])

    def text(key: str) -> str:
        token = meta.get(key, -1)
        return str(tokens[token]) if 0 <= token < len(tokens) else ""

    adds_bos = meta.get("tokenizer.ggml.add_bos_token", True)
    return str(template), text("tokenizer.ggml.eos_token_id"), "" if adds_bos else text("tokenizer.ggml.bos_token_id")


def template_format(path: Path, model_label: str) -> Format:
    """The chat format the GGUF file at ``path`` carries in its metadata, rendered with Jinja2 as llama.cpp would.

    Raises:
        ConfigError: when the file has no ``tokenizer.chat_template``.
    """
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    found = _gguf_template(str(path))
    if found is None:
        raise ConfigError(
            f"{model_label} has no tokenizer.chat_template in its metadata; "
            f"set llm.chat_format to one of: {', '.join(CHAT_FORMATS)}"
        )
    template, eos, bos = found
    formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)

    def render(messages: Turns) -> tuple[str, list[str]]:
        out = formatter(messages=[{"role": r, "content": c} for r, c in messages])  # type: ignore[misc]
        return out.prompt, [s for s in ([out.stop] if isinstance(out.stop, str) else out.stop or []) if s]

    return render


def system_last(messages: Turns) -> Turns:
    """The system prompt moved to the end of the last user turn.

    Speakers' prompts share the dialogue but differ in who is speaking; with the speaker last, the
    next prompt shares the previous one's long prefix, which llama.cpp then does not evaluate again.
    """
    system = "\n\n".join(c for r, c in messages if r == "system")
    turns = [(r, c) for r, c in messages if r != "system"]
    if not system or not turns or turns[-1][0] != "user":
        return messages
    return (*turns[:-1], ("user", f"{turns[-1][1]}\n\n{system}"))


def reminder(system: str, max_words: int = 40) -> str:
    """Who is speaking and how to reply, from a system prompt: its first sentence and, when another, its last
    (each at most ``max_words`` words)."""

    lines = [line.strip() for line in system.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    ends = dict.fromkeys([sentences(lines[0])[0], sentences(lines[-1])[-1]])
    cut = lambda text: " ".join(text.split()[:max_words]) + (" ..." if len(text.split()) > max_words else "")  # noqa: E731
    return " ".join(cut(text) for text in ends)


def remind(messages: Turns) -> Turns:
    """The system prompt left first, and its reminder (who is speaking and how to reply) added to the end of the last
    user turn: the prompt still extends the speaker's previous one up to that turn, so the prefix cache serves it,
    and a small model reads who it is last, where it keeps to it."""
    system = "\n\n".join(c for r, c in messages if r == "system")
    if not system or not messages or messages[-1][0] != "user":
        return messages
    return (*messages[:-1], ("user", f"{messages[-1][1]}\n\n(Remember: {reminder(system)})"))


def shared_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens ``a`` and ``b`` have in common."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def pick_context(held: Sequence[Sequence[int]], tokens: Sequence[int], room: bool) -> int | None:
    """The context a prompt of ``tokens`` goes to, or None for a new one.

    The context holding the longest prefix of the prompt, when that prefix is at least half the prompt (the same
    speaker's dialogue, grown); else an empty context, or a new one while there is ``room``; else the context
    holding the longest prefix, the least recently used among equals.

    Args:
        held: What each context holds, least recently used first.
    """
    if not held:
        return None if room else 0
    shares = [shared_prefix(h, tokens) for h in held]
    best = max(range(len(held)), key=lambda i: (shares[i], -i))
    if 2 * shares[best] >= len(tokens):
        return best
    empty = next((i for i, h in enumerate(held) if not len(h)), None)
    if empty is not None:
        return empty
    return None if room else best


class Contexts:
    """Up to ``size`` llama.cpp contexts of one loaded model, swapped into the ``Llama`` object before each call.

    llama-cpp-python drives one context per ``Llama`` (``_ctx``, with the tokens it holds in ``input_ids[:n_tokens]``);
    a second ``Llama`` would load and repack the weights again. The pinned llama-cpp-python (0.3.36) keeps these
    three attributes as here, and reuses at most ``n_tokens`` of them (the whole batches ``use`` leaves); a call
    sets ``_requires_eval`` so that the last prompt token is evaluated again in the context swapped in.
    """

    def __init__(self, llama: Any, size: int) -> None:
        self.llama = llama
        self.size = size
        # [context, input_ids, n_tokens, tokens evaluated in whole batches from the start], least recently used first
        self.slots: list[list[Any]] = [[llama._ctx, llama.input_ids, 0, 0]]

    def use(self, tokens: Sequence[int]) -> int:
        """Swaps in the context ``pick_context`` chooses for a prompt of ``tokens`` and keeps only the whole batches of
        it that the context can serve; returns how many prompt tokens it serves."""
        from llama_cpp import _internals

        llama, active = self.llama, self.slots[-1]
        active[2] = llama.n_tokens
        choice = pick_context([slot[1][: slot[2]] for slot in self.slots], tokens, len(self.slots) < self.size)
        if choice is None:
            context = _internals.LlamaContext(model=llama._model, params=llama.context_params, verbose=False)
            slot: list[Any] = [context, np.ndarray(llama.input_ids.shape, dtype=llama.input_ids.dtype), 0, 0]
        else:
            slot = self.slots.pop(choice)
        self.slots.append(slot)
        if slot is not active:
            llama._ctx, llama.input_ids, llama.n_tokens = slot[:3]
            llama._requires_eval = True
        shared = shared_prefix(tokens, llama.input_ids[: llama.n_tokens])
        served = whole_batches(shared, slot[3], len(tokens), llama.n_batch)
        llama.n_tokens, slot[3] = served, 0  # llama-cpp-python reuses at most n_tokens; slot[3]: until evaluated
        return served

    def evaluated(self, tokens: Sequence[int]) -> None:
        """The active context has evaluated the prompt ``tokens``: its whole batches can serve a later prompt."""
        self.slots[-1][3] = len(tokens) // self.llama.n_batch * self.llama.n_batch


def whole_batches(shared: int, evaluated: int, prompt: int, batch: int) -> int:
    """Prompt tokens a context may serve from its cache: the prefix the prompt shares with what it holds, within
    what it evaluated in whole batches from the start, short of the prompt's last token (evaluated to sample from),
    rounded down to a whole batch. The rest is evaluated from a batch boundary, so every token of a prompt is
    evaluated in the same batch, [0, B), [B, 2B), ..., whatever the context held: a reply sampled with a seed is
    then the same reply. (A reply's own tokens, decoded one at a time, are never served.)"""
    return max(0, min(shared, evaluated, prompt - 1)) // batch * batch


@lru_cache(maxsize=2)
def _load(path: str, n_ctx: int, n_batch: int, n_threads: int, contexts: int) -> Contexts:
    from llama_cpp import Llama

    llama = Llama(
        model_path=path, n_ctx=n_ctx, n_batch=n_batch, n_threads=n_threads, n_threads_batch=n_threads, seed=0, verbose=False
    )
    atexit.register(llama.close)  # the contexts, then the model, while llama_cpp's module can still free them
    return Contexts(llama, contexts)


def grammar(schema: dict[str, Any]) -> Any:
    """The llama.cpp grammar of a JSON ``schema``: an object's properties come in the order the schema lists them
    (a judge's reason before its verdict, where the schema says so), and it admits only what the schema's validator
    accepts where llama-cpp-python's converter is looser: a string holds no raw control character (JSON forbids
    them; the 1.5B wrote a line break inside a committee statement, and a reply that fails to parse is asked
    again), and an integer between a ``minimum`` and a ``maximum`` is one of the values between them."""
    return _grammar(json.dumps(_bounded_integers(schema)))


_CHAR = r'char ::= [^"\\] |'  # llama-cpp-python's string character, which lets control characters through
_JSON_CHAR = r'char ::= [^"\\\x7F\x00-\x1F] |'  # llama.cpp's own grammars/json.gbnf


def _bounded_integers(schema: Any) -> Any:
    """``schema`` with each integer of a small ``minimum``..``maximum`` range written as the enum of its values,
    which the converter turns into exactly those literals (it ignores the bounds)."""
    if isinstance(schema, list):
        return [_bounded_integers(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    low, high = schema.get("minimum"), schema.get("maximum")
    if schema.get("type") == "integer" and isinstance(low, int) and isinstance(high, int) and 0 <= high - low <= 1000:
        return {"enum": list(range(low, high + 1))}
    return {key: _bounded_integers(value) for key, value in schema.items()}


@lru_cache(maxsize=64)
def _grammar(schema_json: str) -> Any:
    from llama_cpp import LlamaGrammar
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return LlamaGrammar.from_string(json_schema_to_gbnf(schema_json).replace(_CHAR, _JSON_CHAR), verbose=False)


def drop_oldest_exchange(turns: Turns) -> Turns | None:
    """``turns`` less the oldest exchange of the dialogue (its first message after the system prompt, and the reply
    to it), or None when the dialogue is down to its last message and one reply."""
    dialogue = [i for i, (role, _) in enumerate(turns) if role != "system"]
    if len(dialogue) < 3:
        return None
    drop = {dialogue[0]} | ({dialogue[1]} if turns[dialogue[1]][0] == "assistant" else set())
    return tuple(turn for i, turn in enumerate(turns) if i not in drop)


def _cut_middle(text: str, chars: int) -> str:
    """``text`` less ``chars`` characters from its middle, marked where the cut is."""
    keep = max(0, len(text) - chars - 7)
    return text[: keep // 2] + "\n[...]\n" + text[len(text) - (keep - keep // 2) :]


class LlamaCppBackend:
    def __init__(self, settings: Any) -> None:
        try:
            import llama_cpp  # noqa: F401
        except ModuleNotFoundError as exc:
            raise ConfigError(
                "llm=llamacpp needs llama-cpp-python, which is not installed; "
                "install it with: pip install -e '.[llm]' (it compiles llama.cpp, about 8 minutes)"
            ) from exc
        if settings.chat_format not in (AUTO, *CHAT_FORMATS):
            raise ConfigError(
                f"unknown llm.chat_format={settings.chat_format!r}; valid choices: {AUTO}, {', '.join(CHAT_FORMATS)}"
            )
        path, label, packaged_format = model_file(settings)
        with path.open("rb") as f:
            magic = f.read(4)
        if magic != b"GGUF":
            what = "an empty file" if not magic else f"not a GGUF file (it starts with {magic!r})"
            raise ConfigError(
                f"{label}: {what}; llama.cpp reads GGUF models only: give a .gguf file, "
                f"or llm.model_path=null for llm.preset"
            )
        self._args = (str(path), settings.n_ctx, settings.n_batch, settings.threads(), settings.contexts)
        name = settings.chat_format if settings.chat_format != AUTO else packaged_format or AUTO
        chat_format = template_format(path, label) if name == AUTO else CHAT_FORMATS[name]
        arrange: Callable[[Turns], Turns] = (
            system_last if settings.system_last else remind if settings.remind else (lambda turns: turns)
        )
        self.format = lambda turns: chat_format(arrange(turns))
        self.n_ctx = settings.n_ctx
        self.identity = {
            "backend": "llamacpp",
            "file": path.name,
            "bytes": path.stat().st_size,
            "n_ctx": settings.n_ctx,
            "chat_format": name,
            "system_last": settings.system_last,
        } | ({"remind": True} if arrange is remind else {})  # absent otherwise: earlier calls keep their cache keys

    @property
    def llama(self) -> Any:
        """The model, loaded on first use: a run whose calls all come from the cache never loads it."""
        return _load(*self._args).llama

    def _fit(self, messages: Turns, max_tokens: int) -> tuple[str, list[str], list[int]]:
        """The prompt, its stop strings and its tokens, made to fit the context with its reply: the speaker's oldest
        exchanges are dropped first (who speaks and the latest message stay whole), then the longest message is cut
        in its middle."""
        turns = tuple(messages)
        for _ in range(len(messages) + 8):
            prompt, stop = self.format(turns)
            tokens = self.llama.tokenize(prompt.encode(), add_bos=True, special=True)
            excess = len(tokens) + max_tokens - self.n_ctx
            if excess <= 0:
                return prompt, stop, tokens
            shorter = drop_oldest_exchange(turns)
            if shorter is None:
                i = max(range(len(turns)), key=lambda j: len(turns[j][1]))
                shorter = (*turns[:i], (turns[i][0], _cut_middle(turns[i][1], 4 * excess + 64)), *turns[i + 1 :])
            turns = shorter
        raise ValueError(f"the prompt does not fit llm.n_ctx={self.n_ctx} even after cutting; raise llm.n_ctx")

    def complete(self, request: Request) -> Reply:
        rules = grammar(request.schema) if request.schema is not None else None
        with machine_lock():  # one model call at a time on this machine, across threads and processes
            start = time.perf_counter()  # model time: loading on first use, tokenizing, evaluating; not the wait
            prompt, stop, tokens = self._fit(request.messages, request.max_tokens)
            contexts = _load(*self._args)
            cached = contexts.use(tokens)
            out = self.llama.create_completion(
                prompt,
                max_tokens=request.max_tokens,
                temperature=request.temperature,
                top_p=request.top_p,
                seed=request.seed,
                stop=stop,
                grammar=rules,
            )
            contexts.evaluated(tokens)
            seconds = time.perf_counter() - start
        usage = out["usage"]
        return Reply(
            text=out["choices"][0]["text"],
            prompt_tokens=usage["prompt_tokens"],
            completion_tokens=usage["completion_tokens"],
            seconds=seconds,
            cached_tokens=cached,
        )


def build(settings: Any) -> LlamaCppBackend:
    return LlamaCppBackend(settings)
