"""A replay's fork, checked with the rest of the config: where each episode forks from (``replay.run``,
``replay.from_turn``) and the original run's params of each graph. The engine plays it (``engine.replay``)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from dialectica.sim.authoring.params import REBUILDS_GRAPH, ConfigError, build_params, did_you_mean


@dataclass(frozen=True)
class Fork:
    """An episode replayed from another run: its first ``turn`` turns under ``before`` (the original run's
    params), the rest under the replay's own (``dialectica replay``).

    Attributes:
        run: The original run's directory, absolute (as the records and the MLflow tags name it).
        turn: The turns kept from the original; 0 replays the whole episode under the replay's params.
        before: The original run's params of the graph.
    """

    run: str
    turn: int
    before: Any

    def tags(self, graph: str) -> dict[str, str]:
        """MLflow tags linking a replay's run to the original's: its directory, the turn, and its run id if logged."""
        tags = {"replay_of": str(self.run), "replay_from_turn": str(self.turn)}
        summary = Path(self.run) / "summary.json"
        if summary.is_file():
            run_id = json.loads(summary.read_text()).get("graphs", {}).get(graph, {}).get("mlflow_run_id")
            if run_id:
                tags["replay_of_run_id"] = str(run_id)
        return tags


def fork_runs(graph_runs: list[Any], replay: dict[str, Any]) -> list[Any]:
    """The graph runs with their forks: the original run's params of each graph (its ``<graph>/config.json``).

    Raises:
        ConfigError: naming ``replay.run``, ``replay.from_turn`` or an unknown ``replay`` key and what is wrong.
    """
    unknown = sorted(set(replay) - {"run", "from_turn"})
    if unknown:
        hint = did_you_mean(unknown[0], ("from_turn", "run"), "replay.")
        raise ConfigError(f"unknown key replay.{unknown[0]}{hint}; valid keys: from_turn, run")
    source = Path(str(replay["run"]))
    turn = replay.get("from_turn", 0)
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0:
        raise ConfigError(f"replay.from_turn={turn!r} is invalid; valid values: integers >= 0 (the turns kept)")
    if not (source / "episodes.jsonl").is_file():
        raise ConfigError(
            f"replay.run={source} holds no episodes.jsonl; give a finished run's directory "
            "(results/runs/<time>, or a sweep's job folder)"
        )
    forked, past = [], {}
    for run in graph_runs:
        config = source / run.spec.name / "config.json"
        if not config.is_file():
            raise ConfigError(
                f"replay.run={source} has no graph {run.spec.name} ({config} is missing); its graphs: "
                f"{', '.join(sorted(p.parent.name for p in source.glob('*/config.json')))}"
            )
        if turn > 0 and run.spec.play is None and run.spec.turns is None:
            raise ConfigError(
                f"graph {run.spec.name} cannot be forked after a turn (its spec has neither play nor turns); "
                "valid: from_turn=0"
            )
        raw = json.loads(config.read_text())["graph"]
        knobs = {k: v for k, v in raw.items() if k not in ("name", "cast", "calibrated_set")}  # the graph's own
        before = build_params(run.spec.params, knobs, "graph")
        if turn > 0:
            _same_graph(run.spec.name, before, run.params)
            _same_start(run, before)
            past[run.spec.name] = _longest(source, run.spec.name)
        forked.append(replace(run, fork=Fork(str(source.resolve()), turn, before)))  # read from any folder
    _within(source, turn, past)
    return forked


def _same_start(run: Any, before: Any) -> None:
    """Refuses a fork after a turn that changes a knob the graph copies into its starting state: the fork goes on
    from the original's state, so the change would never reach the episode (a graph should read it from
    ``Episode.params`` in its nodes instead)."""
    if before == run.params:
        return
    for scenario in run.scenarios[:1]:
        start, again = run.spec.initial_state(scenario, before), run.spec.initial_state(scenario, before)
        now = run.spec.initial_state(scenario, run.params)
        try:  # a key that differs between two starts under the same knobs (a timestamp, an id) is not the knobs'
            keys = start.keys() | now.keys()
            moved = sorted(k for k in keys if start.get(k) != now.get(k) and start.get(k) == again.get(k))
        except ValueError:  # values whose comparison is ambiguous (arrays): not checked
            return
        if moved:
            raise ConfigError(
                f"{run.spec.name}'s starting state holds {', '.join(moved)}, which the changed graph.* keys set; a fork "
                "after a turn keeps the original's state, so the change would not reach it; valid: from_turn=0"
            )


def _longest(source: Path, graph: str) -> int | None:
    """The most turns an episode of ``graph`` in ``source`` played, or None where the graph does not count them."""
    rounds: list[Any] = []
    with (source / "episodes.jsonl").open() as handle:
        for line in handle:
            record = json.loads(line)
            if record.get("graph") == graph:
                rounds.append((record.get("metrics") or {}).get("rounds"))
    counted = [r for r in rounds if isinstance(r, int | float)]  # an error record may hold none
    return int(max(counted)) if counted else None


def _within(source: Path, turn: int, longest: dict[str, int | None]) -> None:
    """A fork after more turns than every graph's episodes played would change nothing: refused. Past some graphs'
    only (graph=all, where the tribunal's episodes are shorter than the panel's), those are warned of.

    Raises:
        ConfigError: naming ``replay.from_turn`` and the turns that fork something.
    """
    short = {graph: n for graph, n in longest.items() if n is not None and turn > n}
    if not short:
        return
    if len(short) == len(longest):
        most = max(short.values())
        raise ConfigError(
            f"replay.from_turn={turn}: no episode in {source} played more than {most} turns, so every episode would "
            f"replay unchanged; valid: from_turn 0-{most}"
        )
    for graph, n in short.items():
        print(
            f"dialectica: warning: replay.from_turn={turn}: no episode of {graph} in {source} played more than "
            f"{n} turns, so its episodes replay unchanged (from_turn 0-{n} forks them)",
            file=sys.stderr,
        )


def _same_graph(graph: str, before: Any, after: Any) -> None:
    """Refuses a fork after a turn that changes a knob marked as building another compiled graph (a graph used as
    it is: its factory's arguments): an episode's thread cannot move onto another graph mid-dialogue."""
    for f in fields(before):
        if f.metadata.get(REBUILDS_GRAPH) and getattr(before, f.name) != getattr(after, f.name):
            raise ConfigError(
                f"graph.{f.name} builds {graph}'s graph, so a fork after a turn cannot change it "
                f"({getattr(before, f.name)!r} -> {getattr(after, f.name)!r}); valid: from_turn=0 for it, "
                "or fork over the graph's context knobs"
            )
