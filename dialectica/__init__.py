"""Dialectica: an evaluation and simulation harness for LangGraph dialogue graphs.

The installed package maps the project's top-level folders: ``dialectica.sim`` (the harness),
``dialectica.graphs`` (one folder per built-in graph), ``dialectica.metrics``, and the data folders
``dialectica.conf`` and ``dialectica.datasets``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dialectica.sim.records import load_episodes as load_episodes
    from dialectica.sim.sweep_data import load_sweep as load_sweep

try:
    __version__ = version("dialectica")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__", "load_episodes", "load_sweep"]


def __getattr__(name: str) -> Any:
    if name == "load_episodes":  # lazy: keeps ``import dialectica`` free of pandas and pydantic
        from dialectica.sim.records import load_episodes

        return load_episodes
    if name == "load_sweep":
        from dialectica.sim.sweep_data import load_sweep

        return load_sweep
    raise AttributeError(f"module 'dialectica' has no attribute {name!r}")
