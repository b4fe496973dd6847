"""``dialectica list`` and ``dialectica --help``: what is installed and how to run it."""

from __future__ import annotations

import dataclasses
from typing import Any

from dialectica.metrics.summary import COMMON
from dialectica.sim.authoring.params import ConfigError, field_defaults
from dialectica.sim.authoring.spec import GraphSpec
from dialectica.sim.cli.subcommands import subcommand_lines
from dialectica.sim.config import discovery
from dialectica.sim.config.scenarios import scenario_paths

USAGE = """\
usage: dialectica [KEY=VALUE ...]          run every graph (or graph=NAME), Hydra overrides
       dialectica -m KEY=A,B ...           a sweep (multirun), one job per combination
       dialectica list [NAME ...]          the graphs found (or named), their scenarios, params and metrics
       dialectica graph=package.module:attr graph.scenarios=FILE [graph.user=M:F] [graph.judge=M:F|llm]
                                           a LangGraph graph used as it is (also path/to/file.py:attr)
       dialectica replay RUN [from_turn=T] [KEY=VALUE ...] [out=DIR]
                                           every episode of RUN forked after turn T under KEY=VALUE, paired

keys: graph=all|{graphs}  episodes=20  seed=0  scenario=all|[NAME,NAME]
      participants=scripted|calibrated|surrogate  llm=scripted|llamacpp|openai  tracking=sqlite|none
      graph.<param>=VALUE  graph.cast.<option>=VALUE  tracking.uri=URI  resume=true  hydra.run.dir=DIR
      max_concurrency=N (episodes in flight)  llm.preset=NAME  llm.max_in_flight=N  llm.requests_per_minute=N
      max_error_rate=0.5 (exit 1 past it)  participants.failure_rate=P  participants.role_failure_rate=P
      participants.crash_rate=P
other: dialectica --hydra-help (Hydra's own options), dialectica --cfg job (the composed config)"""


def usage() -> str:
    return "\n".join(
        [
            USAGE.format(graphs="|".join(discovery.names())),
            "",
            "subcommands (`dialectica NAME --help`):",
            *subcommand_lines(),
        ]
    )


def main(argv: list[str]) -> int:
    """``dialectica list [NAME ...]``."""
    if argv[:1] in (["--help"], ["-h"]):
        print("usage: dialectica list [NAME ...]: the graphs found (or named), their scenarios, params, metrics and endings")
        return 0
    names = [a.removeprefix("graph=") for a in argv]
    text, failed = list_graphs(names)
    print(text)
    return 2 if names and failed else 0  # a graph named that does not load is bad input, as for a run


def _first_line(obj: Any) -> str:
    return (obj.__doc__ or "").strip().splitlines()[0] if obj.__doc__ else ""


def _param_lines(cls: type, prefix: str) -> list[str]:
    lines, defaults = [], field_defaults(cls)
    for f in dataclasses.fields(cls):
        default = defaults.get(f.name)
        low, high = f.metadata.get("range", (None, None))
        bounds = f" in [{low}, {high}]" if low is not None or high is not None else ""
        shown = repr(default)
        if isinstance(default, str) and default.startswith("${hydra:runtime.cwd}/"):  # where the command runs
            shown = repr(default.removeprefix("${hydra:runtime.cwd}/")) + " (under the working directory)"
        lines.append(f"    {prefix}{f.name} = {shown}{bounds}")
    return lines


def _calibrated(spec: GraphSpec) -> bool:
    """Whether ``participants=calibrated`` can play the graph: it declares a calibration and ships a set."""
    from dialectica.sim.config import calset  # lazy: start-up (yaml)

    return spec.calibration is not None and calset.path_for(spec.datasets).is_file()


def describe(spec: GraphSpec) -> str:
    """A graph's entry in ``dialectica list``."""
    adapted = "scenarios" in {f.name for f in dataclasses.fields(spec.params)}
    scenarios = [] if adapted else list(scenario_paths(spec.datasets))
    origin = (
        "built-in"
        if spec.name in discovery.builtin_names()
        else f"plugin {discovery.plugins()[spec.name].value}"
        if spec.name in discovery.plugins()
        else "used as it is"
        if adapted
        else "native, by import string; not registered: dialectica list and graph=all leave it out"
    )
    lines = [
        f"{spec.name}  ({origin})",
        f"  {spec.description}" if spec.description else "",
        f"  participants: {', '.join(sorted([*spec.casts, *(['calibrated'] if _calibrated(spec) else [])]))}; roles: "
        + ", ".join(f"{role} ({kind})" for role, kind in sorted(spec.roles.items())),
        "  scenarios: graph.scenarios=FILE.yaml (a list of scenarios) or a folder of them"
        if adapted
        else f"  scenarios ({len(scenarios)}): {', '.join(scenarios)}",
        "  params (graph.<key>, default, range):",
    ]
    lines += _param_lines(spec.params, "graph.")
    if dataclasses.fields(spec.cast_options):
        lines += _param_lines(spec.cast_options, "graph.cast.")
    lines += [
        f"  ends: {reason}{' (converged)' if spec.converges(reason) else ''}: {meaning}"
        for reason, meaning in spec.endings().items()
    ]
    lines.append(
        "  metrics: "
        + ", ".join(m.__name__ for m in (*COMMON, *spec.metrics) if spec.agreement or m.__name__ != "undefined_agreement")
        + ("; embedding_agreement" if spec.agreement else "")
    )
    return "\n".join(line for line in lines if line)


def list_graphs(names: list[str] | None = None) -> tuple[str, int]:
    """Every graph found, built-in and plugins (or those ``names`` gives, import strings too), and how many failed
    to load (each is named with its error)."""
    parts, failed = [], 0
    for name in names or discovery.names():
        try:
            parts.append(describe(discovery.load(name)))
        except (ConfigError, ImportError) as exc:
            parts.append(f"{name}  (failed to load: {exc})")
            failed += 1
    return "\n\n".join(parts), failed
