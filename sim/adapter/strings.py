"""Objects named by an import string: graphs (``graph=package.module:attr``), users and judges
(``graph.user=package.module:fn``, ``graph.judge=package.module:fn``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dialectica.sim.adapter.ecosystem import EvaluatorJudge, is_evaluator
from dialectica.sim.adapter.judges import RuleJudge
from dialectica.sim.adapter.users import ScriptedUser
from dialectica.sim.authoring.params import ConfigError, did_you_mean


def package_module(module: str) -> tuple[str, str] | None:
    """For ``path/to/pkg/mod.py``, ``path/to/pkg/__init__.py`` or the folder ``path/to/pkg`` inside a package (its
    folders hold ``__init__.py``): the folder above the top package and the dotted module (``pkg.mod``, ``pkg``);
    None for anything else (a lone script, a dotted module name)."""
    path = Path(module)
    if not (module.endswith(".py") and path.is_file()) and not (path.is_dir() and (path / "__init__.py").is_file()):
        return None
    path = path.resolve()
    parts = [] if path.is_dir() or path.name == "__init__.py" else [path.stem]
    folder = path if path.is_dir() else path.parent
    if not (folder / "__init__.py").is_file():
        return None
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return str(folder), ".".join(parts)


def import_object(target: str) -> Any:
    """The object an import string names: ``package.module:attr`` or ``path/to/file.py:attr``.

    Raises:
        ConfigError: naming the string and the import error.
    """
    import importlib
    import importlib.util
    import sys

    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"{target!r} is not an import string; write package.module:attr or path/to/file.py:attr")
    try:
        packaged = package_module(module_name)
        if packaged is not None:  # a file or folder inside a package: imported as the package's module
            root, dotted = packaged
            if root not in sys.path:
                sys.path.insert(0, root)
            module = importlib.import_module(dotted)
            wanted = Path(module_name).resolve()
            wanted = wanted / "__init__.py" if wanted.is_dir() else wanted
            found = Path(getattr(module, "__file__", "") or "").resolve()
            if found != wanted:  # another copy of the package (an installed plugin) was imported first
                raise ConfigError(
                    f"{target}: {dotted} is imported already from {found}, not {wanted}; give graph={dotted}:{attr} "
                    "to run that copy, or uninstall it to run this one"
                )
        elif module_name.endswith(".py"):
            path = Path(module_name).resolve()
            if not path.is_file():
                raise ConfigError(f"{target}: no such file {path}")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules.setdefault(path.stem, module)
            spec.loader.exec_module(module)
        else:
            if "" not in sys.path and str(Path.cwd()) not in sys.path:  # a console script does not see the cwd
                sys.path.insert(0, str(Path.cwd()))
            module = importlib.import_module(module_name)
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the module raises on import, said in one line
        hint = ""
        if isinstance(exc, ModuleNotFoundError) and exc.name == module_name.partition(".")[0]:
            hint = (
                f"; it is not on the import path from {Path.cwd()}: run from the folder that holds it, install its "
                f"package, or give its file, graph=path/to/{module_name.replace('.', '/')}.py:{attr}"
            )
        raise ConfigError(f"cannot import {module_name} (for {target}): {type(exc).__name__}: {exc}{hint}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        public = [name for name in vars(module) if not name.startswith("_")]
        hint = did_you_mean(attr, public, f"{module_name}:")
        raise ConfigError(f"{target}: module {module_name} has no attribute {attr!r}{hint}") from None


def _named(key: str, target: str, method: str, wrap: Callable[[Any], Any], expected: str) -> Any:
    """The object ``target`` names: as it is when it has ``method``, else a function wrapped by ``wrap``."""
    obj = import_object(target)
    if hasattr(obj, method):
        return obj
    if callable(obj):
        return wrap(obj)
    raise ConfigError(f"{key}={target}: expected {expected}, got {type(obj).__name__}")


def user_from(target: str) -> Any:
    """``graph.user``: a user object (``speaker``), or a function ``(messages, scenario, rng) -> str | None``."""
    return _named("graph.user", target, "speaker", ScriptedUser, "a function (messages, scenario, rng) -> str | None")


def judge_from(target: str) -> Any:
    """``graph.judge``: a judge object (``judge``), or a rule ``(messages, scenario[, state]) -> bool | Verdict``."""

    return _named(
        "graph.judge",
        target,
        "judge",
        lambda fn: EvaluatorJudge(fn) if is_evaluator(fn) else RuleJudge(fn),
        "llm, trajectory, a function (messages, scenario) -> bool, an openevals evaluator or an MLflow scorer",
    )
