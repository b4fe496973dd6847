"""Where the package's own data lives: ``conf/`` and ``datasets/`` travel inside the wheel."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def package_dir(package: str) -> Path:
    """The folder of an installed package (wheels install unzipped, so this is a real path)."""
    return Path(str(files(package)))


def conf_dir() -> Path:
    """The Hydra config tree (``conf/``)."""
    return package_dir("dialectica.conf")


def datasets_dir() -> Path:
    """The built-in graphs' data (``datasets/``)."""
    return package_dir("dialectica.datasets")


def builtin_graph(name: str) -> tuple[Path, Path]:
    """(config file, data folder) of built-in graph ``name``."""
    return conf_dir() / "graph" / f"{name}.yaml", datasets_dir() / name
