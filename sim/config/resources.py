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


CONF_DIR = conf_dir()
# The config groups a command line picks options of (``graph=panel``, ``llm=llamacpp``, ...); the first four
# also hold their option's values under a key of the same name (``llm.model``).
GROUPS = ("graph", "participants", "llm", "tracking", "hparams_search", "experiment")
KEYED_GROUPS = GROUPS[:4]


def group_options(group: str) -> list[str]:
    """The options of config group ``group`` as ``conf/`` holds them (``graph`` adds plugins: ``groups``)."""
    return sorted(p.stem for p in (CONF_DIR / group).glob("*.yaml"))


def datasets_dir() -> Path:
    """The built-in graphs' data (``datasets/``)."""
    return package_dir("dialectica.datasets")


def builtin_graph(name: str) -> tuple[Path, Path]:
    """(config file, data folder) of built-in graph ``name``."""
    return conf_dir() / "graph" / f"{name}.yaml", datasets_dir() / name
