"""The per-round state: a small chart per numeric key, a strip per yes/no key, a table of everything."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dialectica.sim.view.charts import line_chart, strip
from dialectica.sim.view.markup import Markup, fmt, join, number, table, tag


def _kind(values: Sequence[Any]) -> str:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return "flag"
    if any(number(v) is not None for v in present) and all(isinstance(v, (int, float)) for v in present):
        return "number"
    return "text"


def state_section(per_round: Sequence[dict[str, Any]]) -> Markup:
    """Charts for what the graph tracked by round, then every value in one table."""
    if not per_round:
        return tag("p", "No per-round state in the record.", class_="muted")
    rounds = [row.get("round", i + 1) for i, row in enumerate(per_round)]
    keys = [k for k in dict.fromkeys(k for row in per_round for k in row) if k != "round"]
    series = {k: [row.get(k) for row in per_round] for k in keys}
    kinds = {k: _kind(v) for k, v in series.items()}
    charts = [line_chart(k, series[k], rounds) for k in keys if kinds[k] == "number"]
    charts += [strip(k, series[k], rounds) for k in keys if kinds[k] == "flag"]
    rows = [[k, *(fmt(v) for v in series[k])] for k in keys]
    details = tag("details", Markup(tag("summary", "all values by round") + table(["key", *rounds], rows)))
    return join([tag("div", join(charts), class_="charts"), details])
