"""A graph's index page over all its episodes: one row each, linked where the episode has a page.

The rows come in episode order and read well as they are. Filtering by scenario and by termination
reason is two ``<select>`` menus whose effect is pure CSS (``:has(option:checked)``), so it works where
scripts are blocked (MLflow's artifact viewer may block them); sorting by a column is a small inline
script that only reorders the rows, and without it the headings are plain text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dialectica.metrics import Record, converged
from dialectica.sim.view.markup import Markup, esc, fmt, join, number, tag
from dialectica.sim.view.page import document
from dialectica.sim.view.select import metric_value

# The per-episode metrics whose means the run summary's table shows, when a graph records them.
HEADLINE = ("depth", "jaccard_agreement", "embedding_agreement")

CSS = """
.filters { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; margin: 8px 0 2px; }
.filters select { font: inherit; max-width: 46ch; }
.listing { display: flex; flex-direction: column; align-items: flex-start; overflow-x: auto; }
.listing .shown { order: -1; margin: 2px 0; color: var(--muted); }
#index { counter-reset: shown; }
#episodes tbody tr { counter-increment: shown; }
.shown b::before { content: counter(shown); }
#episodes thead th { position: sticky; top: 0; white-space: nowrap; }
#episodes th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: 9px; }
#episodes th[aria-sort="descending"]::after { content: " \\25BC"; font-size: 9px; }
#episodes th button { all: unset; cursor: pointer; color: var(--accent); }
#episodes td.num { text-align: right; font-variant-numeric: tabular-nums; }
#episodes .badge { font-size: 11px; padding: 0 8px; font-weight: normal; }
#episodes code { font-size: 11px; color: var(--muted); user-select: all; }
#episodes tr:target { background: #fff4e0; }
@supports not selector(:has(*)) { .filters, .shown { display: none; } }
"""

# Sorting: a click on a heading orders the rows by that column (again: the other way); cells without a value
# go last, ties keep episode order. Nothing is read from the rows but their text and data-v numbers.
SCRIPT = """
(function () {
  var table = document.getElementById("episodes");
  if (!table || !table.tHead || !table.tBodies.length) return;
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells), body = table.tBodies[0];
  heads.forEach(function (th, col) {
    var kind = th.getAttribute("data-sort");
    if (!kind) return;
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(button);
    button.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending", sign = up ? 1 : -1, numeric = kind === "num";
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows).map(function (row) {
        var cell = row.cells[col], v = numeric ? cell.getAttribute("data-v") : cell.textContent;
        return [numeric && v !== null ? Number(v) : v, Number(row.getAttribute("data-episode")), row];
      });
      rows.sort(function (a, b) {
        if (a[0] === null || b[0] === null) {
          if (a[0] !== b[0]) return a[0] === null ? 1 : -1;
        } else {
          var c = numeric ? a[0] - b[0] : a[0].localeCompare(b[0], undefined, {numeric: true});
          if (c) return sign * c;
        }
        return a[1] - b[1];
      });
      var rest = document.createDocumentFragment();
      rows.forEach(function (r) { rest.appendChild(r[2]); });
      body.appendChild(rest);
    });
  });
})();
"""


def metric_columns(graph_metric: str, metric: str | None, seen: Iterable[str]) -> list[str]:
    """The index's metric columns: the graph's page metric, ``metric`` when another (``-name``: lower is
    better), then those of :data:`HEADLINE` the graph recorded (``seen``: the metric names in its records).
    ``rounds`` has a column of its own."""
    out: list[str] = []
    for name in (graph_metric, metric):
        if name and name.lstrip("-") not in {"rounds", *(m.lstrip("-") for m in out)}:
            out.append(name)
    return out + [m for m in HEADLINE if m in set(seen) and m not in {c.lstrip("-") for c in out}]


def index_row(record: Record, metrics: Sequence[str]) -> dict[str, Any]:
    """What the index shows of one (slim) record: no transcript needed."""
    reason = str(record.get("termination_reason", "unknown"))
    return {
        "episode": record.get("episode", 0),
        "scenario": str(record.get("scenario", "?")),
        "reason": reason,
        "rounds": len(record.get("per_round") or []),
        "converged": converged({"termination_reason": reason, **record}),
        "metrics": [metric_value(record, m) for m in metrics],
        "seconds": number((record.get("timings") or {}).get("episode_seconds")),
    }


def _num(value: float | None, text: Any = None) -> Markup:
    return tag(
        "td", fmt(value) if text is None else text, class_="num", data_v=None if value is None else repr(float(value))
    )


def _choices(select_id: str, label: str, prefix: str, counts: Counter[str]) -> tuple[Markup, list[str], dict[str, str]]:
    """A filter menu over ``counts``' values, its CSS rules, and each value's class."""
    classes = {value: f"{prefix}-{k}" for k, value in enumerate(sorted(counts))}
    options = [tag("option", f"all ({counts.total()})", selected="selected")]
    options += [tag("option", f"{value} ({counts[value]})", class_=classes[value]) for value in sorted(counts)]
    rules = [
        f"#index:has(#{select_id} option.{c}:checked) #episodes tbody tr:not(.{c}) {{ display: none; }}"
        for c in classes.values()
    ]
    menu = tag("label", Markup(esc(label) + " " + tag("select", join(options), id=select_id)))
    return menu, rules, classes


def render_index(
    graph: str, rows: Sequence[dict[str, Any]], metrics: Sequence[str], pages: Mapping[int, Sequence[str]], remake: str
) -> str:
    """The index of every episode of ``graph``.

    Args:
        rows: :func:`index_row` of each episode, in any order (shown by episode).
        metrics: The metric columns (``-name``: lower is better), as ``rows`` hold their values.
        pages: The episodes that have a page, each with why it was picked (empty when not known).
        remake: The command that writes a page when ``--episode N`` is added to it.
    """
    rows = sorted(rows, key=lambda r: r["episode"])
    scenario_menu, scenario_css, scenario_class = _choices(
        "f-scenario", "scenario", "fs", Counter(r["scenario"] for r in rows)
    )
    reason_menu, reason_css, reason_class = _choices("f-reason", "ended", "fr", Counter(r["reason"] for r in rows))
    body = [
        _row(r, pages.get(r["episode"]), remake, f"{scenario_class[r['scenario']]} {reason_class[r['reason']]}")
        for r in rows
    ]
    table = tag(
        "table",
        Markup(f"<thead><tr>{_header(metrics)}</tr></thead><tbody>{join(body)}</tbody>"),
        id="episodes",
        class_="grid",
    )
    linked = sum(r["episode"] in pages for r in rows)
    listing = tag(
        "div", Markup(table + tag("p", Markup(f"<b></b> of {len(rows)} episodes shown"), class_="shown")), class_="listing"
    )
    main = join(
        [
            tag("h1", f"{graph}: {len(rows)} episodes, {linked} with a page"),
            _intro(len(rows), linked, remake),
            tag("div", join([scenario_menu, reason_menu]), class_="filters"),
            _noscript(),
            listing,
        ]
    )
    css = CSS + "\n".join(scenario_css + reason_css)
    return document(
        f"{graph} episodes",
        tag("main", main, id="index", data_graph=graph, data_pages=linked, data_episodes=len(rows)),
        css=css,
        script=SCRIPT,
    )


def _header(metrics: Sequence[str]) -> Markup:
    """The table's column headers, each sortable; ``episode`` sorted first."""
    head = [
        ("episode", "num", None),
        ("scenario", "text", None),
        ("ended", "text", None),
        ("rounds", "num", None),
        ("converged", "num", None),
        *((m.lstrip("-"), "num", "lower is better" if m.startswith("-") else None) for m in metrics),
        ("seconds", "num", "wall-clock seconds of the episode"),
        ("page", "num", "episodes with a page first"),
    ]
    return join(
        tag("th", name, data_sort=kind, title=title, aria_sort="ascending" if name == "episode" else None)
        for name, kind, title in head
    )


def _row(r: dict[str, Any], why: Sequence[str] | None, remake: str, classes: str) -> Markup:
    """One episode's row: linked to its page with why it was picked, or with the command that writes one."""
    episode = r["episode"]
    href = f"episode_{episode}.html"
    badge = tag("span", r["reason"], class_=f"badge reason-{re.sub(r'[^a-z0-9_-]', '', r['reason'])}")
    page = (
        Markup(tag("a", "page", href=href) + join(tag("span", w, class_="why") for w in why))
        if why is not None
        else tag("code", f"{remake} --episode {episode}")
    )
    cells = [
        _num(number(episode), tag("a", episode, href=href) if why is not None else episode),
        tag("td", r["scenario"]),
        tag("td", badge),
        _num(r["rounds"]),
        _num(float(r["converged"]), fmt(r["converged"])),
        *(_num(v) for v in r["metrics"]),
        _num(r["seconds"]),
        tag("td", page, data_v=1 if why is not None else 0),
    ]
    return tag(
        "tr",
        join(cells),
        id=f"e-{episode}",
        data_episode=episode,
        data_scenario=r["scenario"],
        data_reason=r["reason"],
        class_=classes,
    )


def _intro(episodes: int, linked: int, remake: str) -> Markup:
    return tag(
        "p",
        Markup(
            f"{episodes} episodes, {linked} with a page (linked). Any other gets one with "
            + tag("code", f"{remake} --episode N")
            + " (several: "
            + tag("code", "--episode 3,17")
            + ")."
        ),
        class_="muted",
    )


def _noscript() -> Markup:
    return Markup(
        "<noscript>"
        + tag(
            "p",
            "Rows are in episode order: sorting by a column needs scripts, which are "
            "off here. The filters work without them.",
            class_="muted",
        )
        + "</noscript>"
    )
