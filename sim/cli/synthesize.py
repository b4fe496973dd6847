"""``dialectica synthesize DESCRIPTION``: a scenarios file written by the local model (or ``llm=openai``) from a
short description of a graph's users (``dialectica.sim.analysis.synthesize``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from dialectica.sim.analysis.synthesize import STYLES, synthesize, write
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.authoring.structured import read_json, response_format
from dialectica.sim.cli.errors import Parser

DESCRIPTION = "write a scenarios file (personas, goals, openings, rubrics) from a short description of the users"


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica synthesize", description=DESCRIPTION)
    parser.add_argument("description", help='who the graph\'s users are, e.g. "airline customers asking for refunds"')
    parser.add_argument("--count", type=int, default=20, help="scenarios to write (20)")
    parser.add_argument("--out", type=Path, default=Path("scenarios.yaml"), help="the YAML file to write")
    parser.add_argument("--style", choices=STYLES, default="plain", help="adversarial: users who push the graph off")
    parser.add_argument("--tools", default="", help="comma-separated tool names, for each scenario's expected_tools")
    parser.add_argument("--examples", type=Path, help="a scenarios file of your own: two per call show the form")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--similarity", type=float, default=0.9, help="drop a scenario this close to a kept one")
    parser.add_argument("overrides", nargs="*", help="llm overrides, e.g. llm.preset=qwen2.5-coder-1.5b")
    args = parser.parse_intermixed_args(argv)  # options may come between the paths and the overrides
    from dialectica.sim.config.loader import chat_model  # lazy: start-up (omegaconf, yaml)
    from dialectica.sim.engine.embedding import Embedder  # lazy: start-up (numpy, sqlite3)

    model = chat_model(args.overrides, "writer", args.seed)

    def ask(prompt: str, schema: dict[str, Any], seed: int) -> dict[str, Any] | None:
        from langchain_core.messages import HumanMessage

        reply = model.invoke([HumanMessage(prompt)], response_format=response_format(schema))
        value = read_json(str(reply.content), schema)
        return value if isinstance(value, dict) else None

    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    examples = []
    if args.examples is not None:
        import yaml

        if not args.examples.is_file():
            raise ConfigError(f"--examples {args.examples}: no such file; give a YAML list of scenarios")
        loaded = yaml.safe_load(args.examples.read_text())
        if not isinstance(loaded, list) or not all(isinstance(e, dict) for e in loaded):
            raise ConfigError(f"--examples {args.examples}: expected a YAML list of scenarios (mappings)")
        examples = loaded
    done = synthesize(
        args.description, args.count, ask=ask, embed=Embedder(), style=args.style, tools=tools, seed=args.seed,
        similarity=args.similarity, examples=examples, progress=lambda line: print(line, file=sys.stderr),
    )  # fmt: skip
    if not done.scenarios:
        print(f"no valid scenario in {done.calls} calls ({done.invalid} invalid); try a stronger model", file=sys.stderr)
        return 1
    write(done.scenarios, args.out)
    print(
        f"{args.out}: {len(done.scenarios)} scenarios from {done.calls} calls "
        f"({done.invalid} invalid, {done.duplicates} near duplicates dropped)"
    )
    return 0 if len(done.scenarios) == args.count else 1
