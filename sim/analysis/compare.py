"""``dialectica compare``: re-run the fixed CI suite and compare every metric with its committed baseline.

Baselines live in ``results/baselines/<graph>.json`` (``--baselines DIR`` for a project's own); a graph named by an
import string is filed under the name its records carry (``package.module.attr``). A baseline keeps the overrides
that defined its suite (episodes, seed, scenarios, user, judge: ``SUITE_KEYS``); a check runs with them, and one
given others is refused (its numbers would not be comparable); a graph's own knobs may differ. A rate
must stay inside the baseline's 95% interval: the convergence rate's own, and for any other share of the episodes
(a scenario's rate, an ending's share, ``pass_hat/k``, ``error_rate``, the mean of a pass or fail per episode:
``SHARES``) the Wilson interval of the baseline's share over its episodes (``pass_hat/k``: over episodes / k, the
disjoint runs of k it could be read from); every other metric within a relative
tolerance (``--tolerance``, 5% by default, or per metric in ``tolerances.yaml`` beside the baselines). A metric
whose better direction is known (rates up, errors down) that moved the better way is ``improved`` and fails
nothing (``--update`` keeps the gain); any other move is a regression. Wall-clock metrics are not compared. Exit
code 0: no regression; 1: a regression; 2: bad input. ``--out DIR`` also writes ``comparison.json``,
``comparison.md`` and ``junit.xml`` there (sim/analysis/ci_report.py).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dialectica.sim.authoring.params import ConfigError, did_you_mean

BASELINES = Path("results") / "baselines"  # relative to the working directory
SUITE = "ci_suite"
_TIMING = re.compile(r"(seconds|speedup)")


def compared(metrics: dict[str, Any]) -> dict[str, float | None]:
    """The metrics a regression check compares: numeric, finite or not, and not wall-clock."""
    return {k: v for k, v in metrics.items() if not _TIMING.search(k) and (v is None or isinstance(v, (int, float)))}


# a group's convergence rate: a scenario's, or a graph's own breakdown of its episodes (the interview's persona/ and
# schema/)
GROUP_RATE = re.compile(r"^([^/]+)/[^/]+/convergence_rate$")
HIGHER = re.compile(
    r"^(convergence_rate|[^/]+/[^/]+/convergence_rate|pass_hat/\d+|judge_passed_mean|rubric/.+_mean"
    r"|trajectory/match_mean)$"
)  # metrics whose rise is a gain; LOWER: whose fall is (and for an ending's share: `direction`)
LOWER = re.compile(r"^(error_rate|parse_failures|empty_replies)$")
# shares of the episodes, and means of a pass (1) or fail (0) per episode: a rubric's, a trajectory match's, an
# evaluator's score between 0 and 1 (the Wilson interval bounds any mean of values in [0, 1]: their variance is at
# most p(1 - p))
SHARES = re.compile(
    r"^([^/]+/[^/]+/convergence_rate|termination/[^/]+|pass_hat/\d+|error_rate|judge_passed_mean"
    r"|rubric/.+_mean|trajectory/match_mean|score/.+_mean)$"
)


def direction(name: str, converging: Sequence[str] = ("converged",)) -> int:
    """+1 where a metric's rise is a gain, -1 where its fall is, 0 where neither: an ending's share rises as a gain
    when the ending is one of the graph's converging ones, and falls as one otherwise (every other ending, error
    among them, is a way of not converging)."""
    if name.startswith("termination/"):
        return 1 if name.removeprefix("termination/") in converging else -1
    return 1 if HIGHER.match(name) else -1 if LOWER.match(name) else 0


SUITE_KEY = "suite"  # in a baseline: the overrides of the suite that made it


def rate_interval(name: str, baseline: dict[str, Any]) -> tuple[float, float] | None:
    """The 95% interval a rate must stay in: its own, or for a share of the episodes the Wilson interval of the
    baseline's share (a scenario's over its share of the episodes)."""
    low, high = baseline.get(f"{name}_ci95_low"), baseline.get(f"{name}_ci95_high")
    if low is not None and high is not None:
        return float(low), float(high)
    episodes, share = baseline.get("episodes"), baseline.get(name)
    if not SHARES.match(name) or not isinstance(episodes, int | float) or not isinstance(share, int | float):
        return None
    if not 0 <= share <= 1:  # an evaluator's score on another scale: a relative tolerance
        return None
    from dialectica.metrics.stats import wilson_interval  # lazy: start-up (scipy)

    group = GROUP_RATE.match(name)  # a group's share: over the episodes of one of its members, as if balanced
    members = sum(1 for k in baseline if (m := GROUP_RATE.match(k)) and group and m[1] == group[1])
    n = max(1, round(episodes / members)) if group and members else max(1, round(episodes))
    if name.startswith("pass_hat/"):  # all of k tries passing: as many independent looks as disjoint runs of k
        n = max(1, n // int(name.rsplit("/", 1)[1]))
    return wilson_interval(round(share * n), n)


def _verdict(
    name: str, base: float | None, now: float | None, baseline: dict[str, Any], tolerance: float, better: int
) -> str:
    if base is None and now is None:
        return "ok"
    if base is None or now is None:
        return "REGRESSION"
    interval = rate_interval(name, baseline)
    if interval is not None:
        inside = interval[0] - 1e-9 <= now <= interval[1] + 1e-9
    else:
        inside = math.isclose(now, base, rel_tol=tolerance, abs_tol=1e-9)
    if inside:
        return "ok"
    return "improved" if (better > 0 and now > base) or (better < 0 and now < base) else "REGRESSION"


def check_tolerances(path: Path, metrics: set[str]) -> dict[str, float]:
    """``tolerances.yaml``: metric -> relative tolerance (a number >= 0) for metrics the baselines hold.

    Raises:
        ConfigError: naming the file and the key, with the valid choices.
    """
    import yaml  # lazy: start-up

    if not path.exists():
        return {}
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ConfigError(f"{path}: not YAML{where}; write one 'metric: tolerance' per line") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must map metric names to relative tolerances (e.g. depth_mean: 0.1)")
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"{path}: {key}={value!r} must be a number >= 0 (a relative tolerance: 0.1 is 10%)")
        if metrics and str(key) not in metrics:
            raise ConfigError(
                f"{path}: {key} is no metric of the baselines{did_you_mean(str(key), sorted(metrics))}; "
                f"valid keys: {', '.join(sorted(metrics))}"
            )
    return {str(k): float(v) for k, v in data.items()}


# The keys that say what the suite measures and how (its episodes, who plays, who judges), as against the graph's
# own knobs, whose change is what a check is for: a baseline keeps the former, and a check runs with them.
SUITE_KEYS = (
    "episodes",
    "seed",
    "scenario",
    "participants",
    "datasets_dir",
    "llm",
    "graph.scenarios",
    "graph.user",
    "graph.judge",
    "graph.judge_every_turn",
    "graph.metrics",
    "graph.max_turns",
)


def _key(override: str) -> str:
    return override.partition("=")[0].lstrip("+~")


def suite_overrides(overrides: Sequence[str]) -> list[str]:
    """The overrides among ``overrides`` that define the suite (``SUITE_KEYS``), sorted, as a baseline keeps them."""
    return sorted(o for o in overrides if any(_key(o) == k or _key(o).startswith(f"{k}.") for k in SUITE_KEYS))


def suite_defaults() -> dict[str, Any]:
    """The top-level values and group choices a check runs with when not given: ``conf/config.yaml``'s, then the
    suite's (``conf/experiment/ci_suite.yaml``: ``seed: 20261121``, ``participants: scripted``...)."""
    import yaml

    from dialectica.sim.config.resources import CONF_DIR  # lazy: start-up (omegaconf)

    values: dict[str, Any] = {}
    for path in (CONF_DIR / "config.yaml", CONF_DIR / "experiment" / f"{SUITE}.yaml"):
        data = yaml.safe_load(path.read_text()) or {}
        for entry in data.pop("defaults", []):  # a group's choice: {"participants": "scripted"}
            if isinstance(entry, dict):
                values |= {k.removeprefix("override /"): v for k, v in entry.items()}
        values |= {k: v for k, v in data.items() if not isinstance(v, dict | list)}
    return values


def _suite_value(override: str) -> str:
    """What the suite runs ``override``'s key with when it is not given: ``seed=20261121 (the suite's default)``."""
    key = _key(override)
    value = suite_defaults().get(key)
    return f"{key}={value} (the suite's default)" if value is not None else f"{key} unset (the suite's default)"


def _is_default(override: str) -> bool:
    """Whether a top-level override (``seed=20261121``) sets what the suite runs with anyway: a baseline made
    without it was made with that value."""
    import yaml

    key, _, value = override.lstrip("+~").partition("=")
    defaults = suite_defaults()
    if "." in key or key not in defaults:
        return False
    try:
        return bool(yaml.safe_load(value) == defaults[key])
    except yaml.YAMLError:
        return False


def check_suite(graph: str, baseline: dict[str, Any], overrides: Sequence[str], path: Path) -> list[str]:
    """The overrides a check of ``graph`` runs with: those given, and the baseline's suite for every suite key they
    leave out (so that a graph used as it is is checked with the scenarios, user and judge it was measured with).
    A baseline from before suites were kept is not checked.

    Raises:
        ConfigError: a given suite override the baseline does not hold, naming only those and the baseline's.
    """
    kept = baseline.get(SUITE_KEY)
    if not isinstance(kept, list):
        return list(overrides)
    theirs = {_key(o): o for o in kept}
    given = {_key(o): o for o in suite_overrides(overrides)}
    differ = [o for k, o in given.items() if theirs.get(k) != o and not (k not in theirs and _is_default(o))]
    if differ:
        said = "; ".join(f"{o} given, the baseline's {theirs.get(_key(o)) or _suite_value(o)}" for o in differ)
        raise ConfigError(
            f"{path} was measured with another suite ({said}); leave those overrides out to check with the "
            f"baseline's ({' '.join(kept) or 'the defaults'}), or remake it with --update"
        )
    return [*overrides, *(o for k, o in theirs.items() if k not in given)]


def compare(
    graph: str,
    baseline: dict[str, Any],
    now: dict[str, Any],
    tolerances: dict[str, float],
    default: float,
    converging: Sequence[str] = ("converged",),
) -> list[tuple[str, float | None, float | None, str]]:
    """Rows (metric, baseline, now, verdict) for one graph (whose ``converging`` endings count as convergence); a
    metric that disappeared is a regression, a new one is reported as "new"."""
    base, cur = compared(baseline), compared(now)
    rows: list[tuple[str, float | None, float | None, str]] = []
    bounds = {f"{name}_ci95_{side}" for name in base.keys() | cur.keys() for side in ("low", "high")}
    for name in sorted((base.keys() | cur.keys()) - bounds):  # an interval judges its rate, not itself
        if name not in base:
            rows.append((name, None, cur[name], "new"))
        else:
            rows.append(
                (
                    name,
                    base[name],
                    cur.get(name),
                    _verdict(
                        name,
                        base[name],
                        cur.get(name),
                        baseline,
                        tolerances.get(name, default),
                        direction(name, converging),
                    )
                    if name in cur
                    else "REGRESSION",
                )
            )
    return rows


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def table(graph: str, rows: Sequence[tuple[str, float | None, float | None, str]], everything: bool) -> str:
    shown = [r for r in rows if everything or r[3] != "ok"]
    improved = sum(r[3] == "improved" for r in rows)
    gains = f", {improved} improved (--update keeps them)" if improved else ""
    lines = [f"== {graph}: {sum(r[3] == 'REGRESSION' for r in rows)} regression(s){gains} in {len(rows)} metrics"]
    if shown:
        lines.append(f"{'metric':48} {'baseline':>10} {'now':>10} {'delta':>10}  verdict")
        for name, base, now, verdict in shown:
            delta = now - base if base is not None and now is not None else None
            lines.append(f"{name:48} {_fmt(base):>10} {_fmt(now):>10} {_fmt(delta):>10}  {verdict}")
    return "\n".join(lines)


def run_suite(graphs: Sequence[str], overrides: Sequence[str], out_dir: Path) -> dict[str, dict[str, Any]]:
    """Runs the CI suite (``conf/experiment/ci_suite.yaml``) for ``graphs`` (names, plugins or import strings, as
    ``graph=`` takes them); returns metrics by the name each graph's records carry, in the order given."""
    from dialectica.sim.config.discovery import is_import_string, load  # lazy: start-up (yaml)
    from dialectica.sim.config.groups import option, register_plugin_configs  # lazy: start-up (yaml)
    from dialectica.sim.config.loader import load as load_config  # lazy: start-up (omegaconf, yaml)
    from dialectica.sim.engine.runner import run  # lazy: start-up (omegaconf, yaml)

    register_plugin_configs([g for g in graphs if is_import_string(g)])
    results = {}
    for graph in graphs:
        name = load(graph).name
        cfg = load_config([f"+experiment={SUITE}", f"graph={option(graph)}", *overrides], out_dir=out_dir / name)
        results[name] = run(cfg, echo=lambda line: print(line, file=sys.stderr)).metrics(name)
    return results
