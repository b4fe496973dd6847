"""Resume, in one place: what a killed run left in its directory and what ``resume=true`` keeps.

- ``fingerprint.json``: the run's resolved config, flattened to ``key: value`` (secrets redacted), less the keys
  that cannot change its results, and the package version. Resuming with another fingerprint is refused with
  one line naming the keys that differ (``check``).
- ``episodes.jsonl``: a last line half-written by a kill is cut; every complete record is kept, by graph and
  episode (``done_episodes``), and only the missing episodes run again.
- ``<graph>/done``: the marker of a graph that finished, its MLflow run included (``mark_done``); such a graph is
  kept whole with its ``summary.json`` (``finished_graph``). ``summary.json`` at the top is written last: a run that has it
  finished (``finished_run``), unless a graph's MLflow logging failed, which resuming retries.
- A killed run's MLflow runs, left RUNNING, are ended by the tracker (``Tracker.end_stale``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from dialectica.metrics import Record
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.secrets import scrub_tree

FILE = "fingerprint.json"
DONE = "done"  # in a graph's folder: the graph finished, MLflow run included


def _number(value: Any) -> Any:
    """10 and 10.0 are one value (``graph.budget=10`` against the YAML's ``10.0``)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def fingerprint(resolved: dict[str, Any]) -> dict[str, str]:
    """The flattened config that decides a run's results, and the package version (``dialectica.__version__``)."""
    from dialectica.sim.config.typed import flatten, run_control  # lazy: start-up (omegaconf, yaml)

    kept = {
        k: json.dumps(_number(v), sort_keys=True) for k, v in flatten(scrub_tree(resolved)).items() if not run_control(k)
    }
    return {**kept, "dialectica_version": json.dumps(_version())}


@cache
def _version() -> str:
    """The installed package's version, as ``dialectica.__version__`` reads it."""
    try:
        return version("dialectica")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def digest(resolved: dict[str, Any]) -> str:
    """Twelve hex digits of the fingerprint: one config, one digest (a trace's ``dialectica.config`` tag)."""
    import hashlib

    return hashlib.sha256(json.dumps(fingerprint(resolved), sort_keys=True).encode()).hexdigest()[:12]


def _more_episodes(key: str, old: dict[str, str], new: dict[str, str]) -> bool:
    """More episodes than the run had: resuming plays the missing ones (episode ``i``'s seed and scenario do not
    depend on how many there are), as a sequential sweep's rounds and a larger budget do."""
    return key == "episodes" and key in old and key in new and float(json.loads(new[key])) > float(json.loads(old[key]))


def _shown(stored: str | None) -> str:
    """A fingerprint's value as a person wrote it: ``0`` for the stored ``0.0``, ``unset`` for none."""
    if stored is None:
        return "unset"
    value = json.loads(stored)
    return str(int(value)) if isinstance(value, float) and value.is_integer() else stored


def check(out_dir: Path, resolved: dict[str, Any]) -> None:
    """Raises a ConfigError naming the keys that differ from the run directory's fingerprint, if it has one; more
    ``episodes`` than before is not a difference (the missing episodes play)."""
    path = out_dir / FILE
    if not path.exists():
        return
    old, new = json.loads(path.read_text()), fingerprint(resolved)
    keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k) and not _more_episodes(k, old, new))
    if keys:
        shown = ", ".join(f"{k} ({_shown(old.get(k))} -> {_shown(new.get(k))})" for k in keys[:6])
        more = f" and {len(keys) - 6} more" if len(keys) > 6 else ""
        raise ConfigError(
            f"resume=true in {out_dir}, made with another config: {shown}{more}; rerun with the same "
            "values, or drop resume=true and choose another directory (hydra.run.dir, hydra.sweep.dir for a "
            "sweep, out_dir in Python)"
        )


def refuse_earlier(out_dir: Path) -> None:
    """Raises a ConfigError if ``out_dir`` holds a run's episodes or summary: a run without ``resume=true`` starts
    its records afresh, so running there would replace a run without a word."""
    episodes = out_dir / "episodes.jsonl"
    count = sum(1 for _ in episodes.open()) if episodes.exists() else 0
    finished = (out_dir / "summary.json").exists()
    if count or finished:
        held = f"{'a finished run' if finished else 'an unfinished run'} ({count} episode{'s' * (count != 1)})"
        raise ConfigError(
            f"{out_dir} already holds {held}; add resume=true to {'return' if finished else 'finish'} it, or choose "
            "another directory (hydra.run.dir, hydra.sweep.dir for a sweep, out_dir in Python), or delete it"
        )


def record(out_dir: Path, resolved: dict[str, Any], resume: bool) -> None:
    """Writes the run directory's fingerprint; a resumed run keeps the one it found."""
    path = out_dir / FILE
    if not (resume and path.exists()):
        path.write_text(json.dumps(fingerprint(resolved), indent=1, sort_keys=True))


def done_episodes(path: Path, resume: bool) -> dict[str, dict[int, Record]]:
    """Slim records a killed run of this directory finished, by graph and episode; a fresh run starts the file."""
    from dialectica.sim import records  # lazy: the entry point imports this module before Hydra

    if not resume:
        path.write_text("")
        return {}
    complete_lines(path)
    done: dict[str, dict[int, Record]] = {}
    if path.exists():
        for slim in records.read(path, keep=False):
            done.setdefault(slim["graph"], {})[slim["episode"]] = slim
    return done


def complete_lines(path: Path, chunk: int = 1 << 16) -> None:
    """Cuts a last line left half-written by a kill, reading back from the end (the file may be large)."""
    if not path.exists():
        return
    with path.open("rb+") as f:
        end = f.seek(0, 2)
        pos = end
        while pos > 0:
            start = max(0, pos - chunk)
            f.seek(start)
            newline = f.read(pos - start).rfind(b"\n")
            if newline >= 0:
                f.truncate(start + newline + 1)
                return
            pos = start
        f.truncate(0)


def finished_graph(out_dir: Path, name: str, episodes: int, done: dict[int, Record]) -> dict[str, Any] | None:
    """The summary entry of graph ``name`` if a killed run of ``out_dir`` finished it (tracking included) and
    each of its ``episodes`` is still on record (``done``)."""
    path = out_dir / name / "summary.json"
    if not (out_dir / name / DONE).exists() or not path.exists() or not all(i in done for i in range(episodes)):
        return None  # not finished, or not logged to MLflow: run (or log) it now
    entry: dict[str, Any] = json.loads(path.read_text())["graphs"][name]
    return entry if entry["metrics"].get("episodes") == episodes else None  # a summary of as many episodes


def mark_done(graph_dir: Path, done: bool = True) -> None:
    """Marks a graph finished (its records, files, summary and MLflow run are complete), or, before it runs, not."""
    if done:
        (graph_dir / DONE).write_text("")
    else:
        (graph_dir / DONE).unlink(missing_ok=True)


def finished_run(out_dir: Path, episodes: int | None = None) -> dict[str, Any] | None:
    """The summary of a run of ``out_dir`` that finished (``episodes`` a graph, when given), MLflow logging included;
    None if it must (re)run."""
    path = out_dir / "summary.json"
    summary: dict[str, Any] | None = json.loads(path.read_text()) if path.exists() else None
    if not summary or summary.get("stopped_by"):  # a budget stopped it: resuming goes on
        return None
    graphs = summary.get("graphs", {})
    entries = graphs.values()
    if any("tracking_error" in e for e in entries) or not all((out_dir / name / DONE).exists() for name in graphs):
        return None
    if episodes is not None and any(e.get("metrics", {}).get("episodes") != episodes for e in entries):
        return None  # resumed with more episodes: they play
    return summary
