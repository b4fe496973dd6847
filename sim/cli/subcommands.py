"""The subcommands of ``dialectica``, in one table: what ``cli.main`` dispatches and ``--help`` lists."""

from __future__ import annotations

# name: (the function taking the arguments after the name, what the subcommand does). Imported on use.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": ("dialectica.sim.cli.run:main", "run every graph (or graph=NAME) with KEY=VALUE overrides; -m sweeps"),
    "list": ("dialectica.sim.cli.listing:main", "the graphs found (or named): scenarios, params, metrics, endings"),
    "replay": ("dialectica.sim.cli.run:replay", "fork every episode of a finished run after turn T, paired"),
    "view": ("dialectica.sim.cli.view:main", "episode pages of a run (or an MLflow run id), served on loopback"),
    "report": ("dialectica.sim.cli.report:main", "a sweep's notebook as one HTML page"),
    "compare": (
        "dialectica.sim.cli.compare:main",
        "the CI suite against its baselines (exit 1: regression); or RUN_A RUN_B, paired",
    ),
    "bench": ("dialectica.sim.cli.bench:main", "the harness's performance figures, side by side"),
    "sequential": (
        "dialectica.sim.cli.sequential:main",
        "a sweep in rounds on shared seeds, stopped when its choice is decided (anytime-valid)",
    ),
    "plan": (
        "dialectica.sim.cli.plan:main",
        "episodes a comparison needs, fixed or sequential, from a pilot sweep or two runs",
    ),
    "validity": ("dialectica.sim.cli.validity:main", "do the scripted cast's rankings hold with LLM participants?"),
    "calibrate": ("dialectica.sim.cli.calibrate:main", "fit the scripted personas to an LLM reference run"),
    "behaviour": ("dialectica.sim.cli.behaviour:main", "each graph's behaviour statistics for two runs, side by side"),
    "label": ("dialectica.sim.cli.label:main", "choose episodes of a finished run for people to label; queue them"),
    "agreement": ("dialectica.sim.cli.agreement:main", "every verdict of a run against people's labels; corrected rate"),
    "synthesize": ("dialectica.sim.cli.synthesize:main", "write a scenarios file from a short description of the users"),
    "cache": ("dialectica.sim.cli.cache:main", "the LLM call cache to a file, or a file's calls into it"),
    "pairwise": ("dialectica.sim.cli.pairwise:main", "an LLM judge names the better of each pair of two runs' episodes"),
}


def subcommand_lines() -> list[str]:
    width = max(map(len, SUBCOMMANDS))
    return [f"  {name:{width}}  {what}" for name, (_, what) in SUBCOMMANDS.items()]
