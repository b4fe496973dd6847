"""Counterfactual replay: every episode of a finished run forked after turn T under another configuration.

``dialectica replay RUN from_turn=T [KEY=VALUE ...] [out=DIR]`` runs the original command again (its
overrides, from ``RUN/summary.json``) with the given ones on top, into a new run directory; each episode keeps
the original's seed, cast and first T turns and plays the rest under the new config. Because the history
before the fork is the same, the original and the replay differ only by what the config changed after it:
a comparison paired by construction. The original's prefix is simulated again from its seed (the call cache
makes an LLM's prefix the same calls) and checked against its records; where the original kept an episode's
LangGraph checkpoints (``checkpoints=true``, ``authoring/history``), the fork goes on from its recorded state after
turn T, so the history is the original's even where the prefix cannot be played again alike. The paired
report (``replay.json``, ``replay.md``) gives per graph the McNemar test and the paired bootstrap interval that
sweeps use, and for each episode whose ending changed, both endings.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from dialectica.sim.authoring.params import ConfigError, closest

USAGE = (
    "usage: dialectica replay RUN [from_turn=T] [KEY=VALUE ...] [out=DIR]: every episode of run directory RUN "
    "forked after turn T (default 0) under the original command with KEY=VALUE on top"
)


HELP = f"""{USAGE}

  RUN                 a finished run's directory (a sweep's job folder too)
  from_turn=T         the turns each episode keeps before the fork (0: the whole episode plays again)
  KEY=VALUE           the original command's keys to change after the fork, e.g. graph.budget=6
  out=DIR             the new run's directory (default RUN-replay-tT-<what KEY=VALUE set>)
  resume=true         finish a replay that was stopped in out=DIR
  checkpoints=true    keep each episode's LangGraph checkpoints, so that later forks go on from them

Refused: seed= (each episode keeps its seed, so that it pairs with its original), graph= naming a graph the run did
not play, and a from_turn past every episode. Writes replay.json and replay.md: per graph McNemar's test and the
paired interval, and the episodes whose ending changed."""


def _check_out(run: Path, out: Path, resume: bool) -> None:
    """A replay writes a new run directory: never the original's, nor one that holds a run already (unless resuming
    that replay with resume=true).

    Raises:
        ConfigError: naming ``out`` and what to do instead.
    """
    if out.resolve() == run.resolve():
        raise ConfigError(f"out={out} is the run being replayed; a replay never writes over it: give another out=DIR")
    if out.is_dir() and any(out.iterdir()) and not resume:
        raise ConfigError(
            f"out={out} holds a run already; a replay never writes into one: give another out=DIR, remove it, "
            "or add resume=true to finish a replay that was stopped there"
        )


def _default_out(run: Path, turn: str, given: list[str]) -> str:
    """``RUN-replay-tT``, and what the overrides change (``RUN-replay-t2-accept_within_0.1``), so that two replays
    of one run from one turn under other configs land apart (no ``=``: Hydra reads the folder as a value)."""
    from dialectica.sim.config.typed import run_control  # lazy: start-up (omegaconf, yaml)

    changed = []
    for override in given:
        key, _, value = override.lstrip("+~").partition("=")
        if not (run_control(key) or key.startswith("checkpoints")):  # how it runs: a resumed replay finds its folder
            changed.append(f"{key.rsplit('.', 1)[-1]}_{value}")
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(sorted(changed)))[:80]
    return f"{run.as_posix().rstrip('/')}-replay-t{turn}" + (f"-{slug}" if slug else "")


def arguments(args: list[str]) -> list[str]:
    """The Hydra arguments of ``dialectica replay RUN ...``: the original's overrides, the given ones, the
    replay keys and the output directory.

    Raises:
        ConfigError: for a missing run, a run without a summary, or a sweep flag.
    """
    flag = next((a for a in args if a.startswith("--") and a != "--multirun"), None)
    if flag is not None:
        key, _, value = flag[2:].partition("=")
        raise ConfigError(f"{flag}: replay's keys are key=value, e.g. {key.replace('-', '_')}={value or '...'} ({USAGE})")
    if not args or "=" in args[0]:
        first = "" if not args else f"; RUN comes first, before {args[0]}"
        raise ConfigError(f"give the run directory to replay{first} ({USAGE})")
    run, rest = Path(args[0]), args[1:]
    if not run.is_dir():
        raise ConfigError(f"{run}: no such run directory ({USAGE})")
    if not (run / "episodes.jsonl").is_file() and (run.parent / "episodes.jsonl").is_file():
        raise ConfigError(f"{run} is a graph's folder of the run {run.parent}: give the run, {run.parent} ({USAGE})")
    if not (run / "summary.json").is_file():
        above = run.parent if (run.parent / "summary.json").is_file() else None
        hint = f"; {run.name} is a graph's folder: give its run, {above}" if above else ": replay a finished run's directory"
        raise ConfigError(f"{run} holds no summary.json{hint} ({USAGE})")
    if {"-m", "--multirun"} & set(rest):
        raise ConfigError("dialectica replay forks one run; to compare several configs, replay once per config")
    turn = next((a.partition("=")[2] for a in rest if a.startswith(("from_turn=", "replay.from_turn="))), "0")
    given = [a for a in rest if not a.startswith(("from_turn=", "replay.from_turn=", "out="))]
    out = next((a.partition("=")[2] for a in rest if a.startswith("out=")), _default_out(run, turn, given))
    _check_out(run, Path(out), "resume=true" in given)
    keys = {a.lstrip("+~").partition("=")[0] for a in given}
    _check_keys(keys)
    summary = json.loads((run / "summary.json").read_text())
    _check_graph(run, given, summary)
    original = [
        o for o in summary.get("overrides", []) if o.lstrip("+~").partition("=")[0] not in keys | {"hydra.run.dir", "resume"}
    ]
    return [*original, *given, f"replay.run='{run}'", f"replay.from_turn={turn}", f"hydra.run.dir={out}"]


def _check_keys(keys: set[str]) -> None:
    """Refuses ``seed=``, which would play other episodes (a replay keeps each episode's seed, so that its pairs are
    pairs), and a misspelt ``from_turn`` or ``out``, which the run's own config would not know either."""
    if "seed" in keys:
        raise ConfigError(
            "seed=: a replay keeps each episode's seed, so that the original and the replay pair up; to play other "
            "seeds, run the original command with seed= instead"
        )
    for key in sorted(keys):
        meant = closest(key, ("from_turn", "out")) if "." not in key else None
        if meant is not None and key != meant:
            raise ConfigError(f"unknown key {key} (did you mean {meant}?); replay's own keys: from_turn, out ({USAGE})")


def _graph_choice(overrides: list[str]) -> str | None:
    return next((o.partition("=")[2] for o in overrides if o.lstrip("+~").partition("=")[0] == "graph"), None)


def _check_graph(run: Path, given: list[str], summary: dict[str, Any]) -> None:
    """Refuses ``graph=`` naming a built-in or plugin graph ``run`` did not play, before the original's graph keys
    are read against it (an import string is left to the loader: its records may carry its spec's own name)."""
    chosen, played = _graph_choice(given), sorted(summary.get("graphs") or {})
    if chosen in (None, "all", _graph_choice(summary.get("overrides", []))) or ":" in str(chosen) or not played:
        return
    if chosen not in played:
        raise ConfigError(
            f"graph={chosen}: a replay forks the episodes {run} played, of {', '.join(played)}; drop graph= "
            f"(or name one of those), and run graph={chosen} on its own"
        )


def replay(
    run: str | Path, from_turn: int = 0, overrides: list[str] | tuple[str, ...] = (), out_dir: str | Path | None = None
) -> dict[str, Any]:
    """``dialectica replay`` from Python: forks every episode of ``run`` after ``from_turn`` under the original
    command with ``overrides`` on top, into ``out_dir`` (default ``RUN-replay-tT-<what the overrides set>``:
    ``RUN-replay-t1-budget_6``).

    Returns:
        The paired report (also in ``replay.json``): per graph the pairs, both rates, the difference with its
        paired 95% interval, McNemar's p, the episodes whose ending changed; ``replay`` names the new run.

    Raises:
        ConfigError: one line naming the bad key, file or value.
    """
    from dialectica.sim.config.loader import load  # lazy: start-up (omegaconf, yaml)
    from dialectica.sim.config.shape import override_list  # lazy: start-up (omegaconf)
    from dialectica.sim.engine.runner import run as run_config  # lazy: start-up (omegaconf, yaml)

    args = arguments(
        [
            str(run),
            f"from_turn={from_turn}",
            *override_list(overrides, "graph.budget=6"),
            *([f"out={out_dir}"] if out_dir else []),
        ]
    )
    out = Path(args[-1].partition("=")[2])  # hydra.run.dir=..., last
    result = run_config(load(args[:-1], out_dir=out, values={"progress": False}), echo=lambda line: None)
    assert result.replay is not None  # replay.run is set: every graph forks
    return result.replay
