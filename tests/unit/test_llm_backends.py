"""Backends without a model: the packaged GGUF's assembly, chat formats, and one-line errors."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import threading

import numpy as np
import pytest

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.llm import gguf
from dialectica.sim.llm.llamacpp import (
    Contexts,
    LlamaCppBackend,
    _cut_middle,
    chatml,
    gemma,
    pick_context,
    shared_prefix,
    whole_batches,
)
from dialectica.sim.llm.machine import ENV, machine_lock
from dialectica.sim.llm.server import ServerBackend
from dialectica.sim.llm.settings import LLMSettings


def _fake_preset(tmp_path, monkeypatch, chunks: list[bytes], digest: str | None = None) -> list:
    """A preset ``fake`` whose parts are ``chunks``; returns the list of part-listing calls."""
    paths = []
    for i, data in enumerate(chunks):
        path = tmp_path / f"part{i}"
        path.write_bytes(data)
        paths.append(path)
    calls: list[int] = []

    def parts():
        calls.append(1)
        return paths

    preset = gguf.Preset(
        "fake-package", "model.gguf", digest or hashlib.sha256(b"".join(chunks)).hexdigest(), parts, "auto", "test"
    )
    monkeypatch.setitem(gguf.PRESETS, "fake", preset)
    return calls


def test_packaged_model_is_assembled_once_and_verified(tmp_path, monkeypatch):
    calls = _fake_preset(tmp_path, monkeypatch, [b"GGUF", b"-weights", b"-tail"])
    target = gguf.assemble("fake", tmp_path / "models")
    assert target.read_bytes() == b"GGUF-weights-tail"
    assert gguf.assemble("fake", tmp_path / "models") == target
    assert len(calls) == 1  # not assembled again


def test_a_corrupt_assembly_fails_and_leaves_nothing_behind(tmp_path, monkeypatch):
    _fake_preset(tmp_path, monkeypatch, [b"abc"], digest="0" * 64)
    with pytest.raises(ConfigError, match="fails its SHA-256 check"):
        gguf.assemble("fake", tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []


def test_every_preset_names_its_package_when_missing(tmp_path, monkeypatch):
    for name, preset in gguf.PRESETS.items():

        def missing():
            raise ModuleNotFoundError("no", name="absent_part1")

        monkeypatch.setitem(
            gguf.PRESETS,
            name,
            gguf.Preset(preset.requirement, preset.file, preset.sha256, missing, preset.chat_format, preset.license),
        )
        with pytest.raises(ConfigError, match=rf"llm\.preset={name} needs .*not installed \(no module absent_part1\)"):
            gguf.assemble(name, tmp_path)


def test_unknown_preset_or_missing_file_is_a_one_line_error(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown llm\.preset='nope'; valid choices: gemma3-270m"):
        gguf.model_file(LLMSettings(backend="llamacpp", preset="nope", model_dir=str(tmp_path)))
    with pytest.raises(ConfigError, match=r"llm\.model_path=.*nope\.gguf: no such file"):
        gguf.model_file(LLMSettings(backend="llamacpp", model_path=str(tmp_path / "nope.gguf")))


def test_missing_llama_cpp_package_is_a_one_line_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(ConfigError, match=r"llm=llamacpp needs llama-cpp-python.*pip install -e '\.\[llm\]'"):
        LlamaCppBackend(LLMSettings(backend="llamacpp"))


def test_server_backend_needs_a_url():
    with pytest.raises(ConfigError, match="llm.base_url is not set"):
        ServerBackend(LLMSettings(backend="openai", base_url=None))


def test_gemma_format_opens_the_first_user_turn_with_the_system_prompt():
    prompt, stop = gemma((("system", "Be brief."), ("user", "Hi"), ("assistant", "Hello"), ("user", "Why?")))
    assert prompt == (
        "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello<end_of_turn>\n"
        "<start_of_turn>user\nWhy?<end_of_turn>\n<start_of_turn>model\n"
    )
    assert "<end_of_turn>" in stop
    assert chatml((("system", "S"), ("user", "U"))) == (
        "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n",
        ["<|im_end|>", "<|im_start|>"],
    )


@pytest.mark.parametrize("n, cut", [(1000, 100), (500, 499), (80, 10)])
def test_cut_middle_keeps_both_ends(n, cut):
    text = "".join(chr(65 + i % 26) for i in range(n))
    out = _cut_middle(text, cut)
    assert len(out) <= n - cut + 7 and "[...]" in out
    head, tail = out.split("\n[...]\n")
    assert text.startswith(head) and text.endswith(tail)


def test_system_last_moves_who_speaks_after_the_dialogue_so_speakers_share_a_prefix():
    from dialectica.sim.llm.llamacpp import system_last

    shared = ("user", "Question: free buses?\nStatements so far: ...")
    a, b = system_last((("system", "You are Ada."), shared)), system_last((("system", "You are Bo."), shared))
    prompt_a, prompt_b = gemma(a)[0], gemma(b)[0]
    common = os.path.commonprefix([prompt_a, prompt_b])  # noqa: RUF071 - a character prefix of two prompts
    assert common.startswith("<start_of_turn>user\n" + shared[1])  # everything but the speaker is shared
    assert a[-1][1].endswith("You are Ada.")
    assert system_last((("user", "hi"),)) == (("user", "hi"),)


def test_remind_keeps_the_speakers_dialogue_a_growing_prefix_and_repeats_who_speaks_at_the_end():
    from dialectica.sim.llm.llamacpp import chatml, remind, reminder

    system = ("system", "You are Ada, a customer who wants a refund. You are often vague.\nSay DONE when served.")
    again = "(Remember: You are Ada, a customer who wants a refund. Say DONE when served.)"
    first = remind((system, ("user", "How can I help?")))
    second = remind((system, ("user", "How can I help?"), ("assistant", "My flight."), ("user", "Which one?")))
    assert first[0] == second[0] == system  # who speaks stays first, with the dialogue after it
    assert first[-1][1] == f"How can I help?\n\n{again}" and second[-1][1] == f"Which one?\n\n{again}"
    # the second prompt repeats the first up to the first one's last user turn: only the reminder is evaluated again
    shared = os.path.commonprefix([chatml(first)[0], chatml(second)[0]])  # noqa: RUF071 - a character prefix
    assert shared.endswith("How can I help?")
    assert remind((("user", "hi"),)) == (("user", "hi"),)  # nothing to repeat
    assert reminder("Be brief. Then stop.") == "Be brief. Then stop."
    assert reminder("Be brief.") == "Be brief."  # one sentence is said once
    assert reminder("Version 2.5 is out. Yes.\nEnd here") == "Version 2.5 is out. End here"  # 2.5 ends nothing
    assert reminder("You are Dr. Sofia Alvarez, a planner. Be brief.") == "You are Dr Sofia Alvarez, a planner. Be brief."
    with pytest.raises(ConfigError, match=r"llm\.remind=true .* llm\.system_last=false"):
        LLMSettings(backend="llamacpp", remind=True).validate()
    assert reminder(" ".join(["word"] * 50), max_words=3) == "word word word ..."


def test_a_prompt_too_long_loses_its_oldest_exchanges_first_and_keeps_who_speaks_and_the_last_message():
    from dialectica.sim.llm.llamacpp import drop_oldest_exchange

    s, u1, a1, u2, a2, u3 = (
        ("system", "You are Ada."),
        ("user", "q1"),
        ("assistant", "r1"),
        ("user", "q2"),
        ("assistant", "r2"),
        ("user", "q3"),
    )
    assert drop_oldest_exchange((s, u1, a1, u2, a2, u3)) == (s, u2, a2, u3)
    assert drop_oldest_exchange((s, u2, a2, u3)) == (s, u3)
    assert drop_oldest_exchange((s, u3)) is None and drop_oldest_exchange((u3,)) is None
    assert drop_oldest_exchange((s, a1, u2, a2, u3)) == (s, u2, a2, u3)  # a reply whose question went goes alone
    assert drop_oldest_exchange((u1, u2, u3)) == (u2, u3)  # no reply: one message at a time


def test_voices_check_rejects_roles_no_graph_has():
    from dialectica.sim.llm.casting import Voices

    with pytest.raises(ConfigError, match=r"unknown llm\.roles\.judge; valid roles here: chair, member"):
        Voices(LLMSettings(backend="llamacpp", roles={"judge": "scripted"})).check(
            [("chair", "system"), ("member", "participant")]
        )


def test_a_file_that_is_not_gguf_is_refused_before_anything_loads(tmp_path):
    pytest.importorskip("llama_cpp")
    fake = tmp_path / "weights.bin"
    fake.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(ConfigError, match=r"llm\.model_path=.*weights\.bin: not a GGUF file"):
        LlamaCppBackend(LLMSettings(backend="llamacpp", model_path=str(fake)))


def test_the_grammar_writes_properties_in_the_order_the_schema_lists_them():
    # it once sorted them, so every judge wrote its verdict before its reason
    pytest.importorskip("llama_cpp")
    from dialectica.graphs.tribunal.bench import opinions_schema
    from dialectica.sim.adapter.judges import VERDICT_SCHEMA
    from dialectica.sim.llm.llamacpp import grammar

    def order(schema):
        root = next(r for r in grammar(schema)._grammar.splitlines() if r.startswith("root ::="))
        return re.findall(r"([\w-]+)-kv", root)

    assert order(VERDICT_SCHEMA) == ["reason", "passed"]
    assert order({**VERDICT_SCHEMA, "properties": dict(reversed(VERDICT_SCHEMA["properties"].items()))}) == [
        "passed",
        "reason",
    ]
    tribunal = grammar(opinions_schema([{"id": "c1"}]))._grammar
    assert re.search(r"criterion-kv.*cited-kv.*argument-kv.*score-kv", tribunal)


def test_the_grammar_admits_no_reply_the_schema_would_reject():
    # llama-cpp-python's converter let a raw line break into a string (the 1.5B wrote one in a committee statement,
    # which then failed to parse on all three attempts) and any integer into a bounded one
    pytest.importorskip("llama_cpp")
    from dialectica.graphs.committee.reading import STATEMENT_SCHEMA
    from dialectica.sim.llm.llamacpp import grammar

    rules = dict(line.split(" ::= ", 1) for line in grammar(STATEMENT_SCHEMA)._grammar.splitlines() if " ::= " in line)
    character = re.match(r"\[\^(.*?)\]", rules["char"])
    assert character is not None and r"\x00-\x1F" in character.group(1) and r"\x7F" in character.group(1)
    assert [int(v) for v in re.findall(r'"(\d+)"', rules["confidence"])] == list(range(101))
    assert "-" not in rules["confidence"]
    assert rules["confidence-kv"].endswith(" confidence") and "integer" not in rules  # the field uses the bounded rule


def test_http_client_logs_default_to_warning_but_a_chosen_level_stays():
    import logging

    from dialectica.sim.llm.server import HTTP_LOGGERS, quiet_http_logs

    saved = {name: logging.getLogger(name).level for name in HTTP_LOGGERS}
    try:
        logging.getLogger("httpx").setLevel(logging.NOTSET)
        logging.getLogger("openai").setLevel(logging.DEBUG)
        quiet_http_logs()
        assert logging.getLogger("httpx").getEffectiveLevel() == logging.WARNING
        assert logging.getLogger("openai").level == logging.DEBUG
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


def test_model_threads_are_the_cores_even_when_a_process_shares_them(monkeypatch):
    monkeypatch.delenv("DIALECTICA_LLM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a sweep job: torch and BLAS take one thread
    assert LLMSettings().threads() == min(8, len(os.sched_getaffinity(0)))  # model calls take turns: all cores each
    monkeypatch.setenv("DIALECTICA_LLM_THREADS", "1")  # a test worker beside another
    assert LLMSettings().threads() == 1
    assert LLMSettings(n_threads=3).threads() == 3  # an explicit value wins


def test_model_calls_take_turns_across_processes_and_threads(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path / "llm.lock"))
    probe = (  # another process: exit 0 when it could take the machine's model lock at once, 1 when it would wait
        "import sys\nfrom dialectica.sim.llm.machine import machine_lock\n"
        "with machine_lock(wait=False) as held:\n    sys.exit(0 if held else 1)\n"
    )
    free = lambda: subprocess.run([sys.executable, "-c", probe]).returncode == 0  # noqa: E731
    assert free()
    with machine_lock() as held:
        assert held and not free()  # another process waits for the call in progress
        other_thread: list[bool] = []
        thread = threading.Thread(target=lambda: other_thread.append(free_here()))
        thread.start()
        thread.join()
        assert other_thread == [False]  # and so does another thread of this process (llama.cpp is not thread-safe)
    assert free() and free_here()


def free_here() -> bool:
    with machine_lock(wait=False) as held:
        return held


def test_a_prompt_goes_to_the_context_holding_its_own_dialogue():
    ada, ben = [1, 2, 3, 4, 5, 6], [1, 9, 9, 9, 9, 9]
    held = [ada, ben]  # ada's context is the least recently used
    assert pick_context(held, [*ben, 7, 8], room=True) == 1  # ben's dialogue, grown: ben's context
    assert pick_context(held, [*ada, 7], room=False) == 0
    assert pick_context(held, [5, 5, 5, 5], room=True) is None  # a new speaker: a new context while there is room
    assert pick_context([ada, []], [5, 5, 5, 5], room=False) == 1  # ... or an empty one
    assert pick_context(held, [5, 5, 5, 5], room=False) == 0  # else the least recently used
    assert pick_context(held, [1, 2, 8, 8, 8, 8, 8], room=False) == 0  # the longest prefix, even if short
    assert pick_context([], [1, 2], room=True) is None
    assert shared_prefix([1, 2, 3], [1, 2, 4, 5]) == 2 and shared_prefix([], [1]) == 0


def test_a_context_serves_only_whole_batches_of_a_prompt_it_evaluated():
    """llama.cpp's numbers for a token depend on the batch it was evaluated in (with Qwen2.5-Coder-1.5B a seeded
    reply differs when its prompt was split at another token): a prompt is evaluated in the same batches whatever
    the context held."""
    assert whole_batches(shared=100, evaluated=128, prompt=137, batch=32) == 96
    assert whole_batches(shared=200, evaluated=64, prompt=300, batch=32) == 64  # not past what it evaluated whole
    assert whole_batches(shared=64, evaluated=64, prompt=64, batch=32) == 32  # the last token is evaluated: its whole batch
    assert whole_batches(shared=10, evaluated=64, prompt=100, batch=32) == 0


class _Llama:
    """What ``Contexts`` reads and writes of llama-cpp-python's ``Llama``: one context, its tokens, its batch size."""

    def __init__(self) -> None:
        self._ctx, self.n_batch, self.n_tokens = object(), 32, 0
        self.input_ids = np.zeros(512, dtype=np.intc)

    def called(self, prompt: list[int], reply: list[int]) -> None:
        """A completion: the context now holds the prompt and the reply's tokens."""
        held = [*prompt, *reply]
        self.input_ids[: len(held)], self.n_tokens = held, len(held)


def test_a_grown_dialogue_is_served_from_its_context_in_whole_batches_and_never_its_reply():
    llama, first = _Llama(), list(range(1, 101))
    contexts = Contexts(llama, size=1)
    assert contexts.use(first) == 0
    contexts.evaluated(first)
    llama.called(first, reply=[7] * 10)
    grown = [*first, *range(200, 250)]  # the same speaker's prompt, its dialogue grown
    assert contexts.use(grown) == llama.n_tokens == 96  # 3 whole batches of 32; not 100, not the reply
    llama.called(grown, reply=[])  # ... and the call fails before its prompt is evaluated: nothing served next
    assert contexts.use(grown) == 0
