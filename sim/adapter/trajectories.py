"""What a graph used as it is did, against what its scenario says it should do (``expected_tools``,
``expected_path``, ``trajectory_mode``): per-episode metrics, and their means per scenario.

Per episode (``metrics/trajectory.py`` computes them): ``tools/errors`` always; with ``expected_tools``,
``trajectory/match`` (1 or 0, in the scenario's mode), ``tools/precision``, ``tools/recall`` and
``tools/argument_match``; with ``expected_path``, ``path/match``. :class:`TrajectoryJudge` makes the tool-call
match the episode's verdict.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dialectica.metrics import MetricFn, Record
from dialectica.metrics.trajectory import MODES, calls_match, expected_call, path_match, tool_scores
from dialectica.sim.authoring.params import ConfigError

PREFIXES = ("trajectory/", "tools/", "path/", "score/", "rubric/")  # split by scenario: what it did, how it scored


@dataclass(frozen=True)
class TrajectoryJudge:
    """A judge that passes an episode when the graph's tool calls match the scenario's ``expected_tools``, in
    ``mode`` (None: the scenario's ``trajectory_mode``, else ``strict``). It reads the calls from the graph's final
    state (its ``messages``), so the graph must keep them there, as LangGraph's message graphs do."""

    mode: str | None = None

    def __post_init__(self) -> None:
        if self.mode is not None and self.mode not in MODES:
            raise ConfigError(f"TrajectoryJudge(mode={self.mode!r}) is invalid; valid choices: {', '.join(MODES)}")

    def judge(self, messages: Any, scenario: Mapping[str, Any], state: Mapping[str, Any], cast: Any) -> Any:
        from dialectica.sim.adapter.judges import Verdict  # lazy: start-up (langchain-core, langsmith)

        if "expected_tools" not in scenario:
            raise ConfigError(f"scenario {scenario.get('name')!r} has no 'expected_tools' for the TrajectoryJudge")
        mode = self.mode or str(scenario.get("trajectory_mode", "strict"))
        made = [
            {"name": str(c["name"]), "args": dict(c.get("args") or {})}
            for m in state.get("messages") or []
            for c in getattr(m, "tool_calls", None) or []
        ]
        expected = [expected_call(e) for e in scenario["expected_tools"]]
        passed = calls_match(made, expected, mode)
        names = lambda calls: ", ".join(c["name"] for c in calls) or "none"  # noqa: E731
        return Verdict(passed, f"tool calls {names(made)}; expected ({mode}) {names(expected)}")


def episode_metrics(
    calls: Sequence[Mapping[str, Any]], path: Sequence[str], scenario: Mapping[str, Any]
) -> dict[str, float]:
    """One episode's trajectory metrics from its tool ``calls`` and node ``path``."""
    mode = str(scenario.get("trajectory_mode", "strict"))
    out = {"tools/errors": float(sum(bool(c.get("error")) for c in calls))}
    if "expected_tools" in scenario:
        expected = [expected_call(e) for e in scenario["expected_tools"]]
        out["trajectory/match"] = float(calls_match(calls, expected, mode))
        out |= {f"tools/{k}": v for k, v in tool_scores(calls, expected).items()}
    if "expected_path" in scenario:
        out["path/match"] = float(path_match(path, scenario["expected_path"], mode))
    return out


def trajectories_by_scenario() -> MetricFn:
    """``scenario/<name>/<metric>``: each trajectory metric's and evaluator score's mean over a scenario's episodes
    (NaN left out)."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        values: dict[str, list[float]] = defaultdict(list)
        for r in records:
            for key, value in (r.get("metrics") or {}).items():
                if key.startswith(PREFIXES) and isinstance(value, float) and not math.isnan(value):
                    values[f"scenario/{r['scenario']}/{key}"].append(value)
        return {key: sum(v) / len(v) for key, v in sorted(values.items())}

    return compute
