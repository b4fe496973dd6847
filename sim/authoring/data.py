"""A graph's data: YAML files read safely (``read_yaml``), and where the package's own ``conf/`` and
``datasets/`` are (they travel inside the wheel)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml

from dialectica.sim.authoring.params import ConfigError

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml parses about 8 times faster


MAX_BYTES = 1 << 20  # a data file past 1 MiB is refused unread: the largest shipped one is about 70 KiB
MAX_NODES = 1_000_000  # values a parsed file may expand to, aliases followed: a "YAML bomb" stops here


class Unreadable(ValueError):
    """Why a data file cannot be used, without its path (the caller says which file)."""


def _expanded_size(data: Any, limit: int) -> int:
    """How many values ``data`` holds with every alias expanded, counting no further than ``limit``."""
    seen, stack = 0, [data]
    while stack and seen <= limit:
        value = stack.pop()
        seen += 1
        if isinstance(value, dict):
            stack.extend(value.values())
            stack.extend(value.keys())
        elif isinstance(value, list):
            stack.extend(value)
    return seen


def parse_yaml(path: Path) -> Any:
    """The parsed file; raises Unreadable naming the problem (size, encoding, YAML syntax, alias bomb)."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise Unreadable(f"{size:,} bytes, over the {MAX_BYTES >> 20} MiB cap on data files ({MAX_BYTES:,} bytes)")
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from exc
    except OSError as exc:
        raise Unreadable(f"cannot be read ({exc.strerror or exc})") from exc
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader: no Python tags
    except yaml.YAMLError as exc:
        where = str(exc).replace(' in "<unicode string>",', "")  # the file is named by the caller
        raise Unreadable(f"not valid YAML: {' '.join(where.split())}") from exc
    if _expanded_size(data, MAX_NODES) > MAX_NODES:
        raise Unreadable(f"its aliases expand past {MAX_NODES:,} values (a YAML bomb?)")
    return data


def read_yaml(path: Path) -> Any:
    """A YAML data file, parsed safely (no Python tags, at most ``MAX_BYTES``, aliases expanding to at most
    ``MAX_NODES`` values); None for an empty file.

    Raises:
        ConfigError: naming the file and what is wrong with it.
    """
    try:
        return parse_yaml(path)
    except Unreadable as exc:
        raise ConfigError(f"malformed data file {path}: {exc}; fix or replace it") from None


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
