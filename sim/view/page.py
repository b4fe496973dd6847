"""One episode record -> one self-contained HTML page (inline CSS and SVG, no scripts, nothing fetched)."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dialectica.metrics import FullRecord
from dialectica.sim.view.explain import explain
from dialectica.sim.view.markup import Markup, esc, fmt, join, markdown, section, table, tag
from dialectica.sim.view.path import path_section
from dialectica.sim.view.registry import endings_for, view_for
from dialectica.sim.view.state import state_section
from dialectica.sim.view.style import CSS
from dialectica.sim.view.timeline import timeline
from dialectica.sim.view.topology import Topology
from dialectica.sim.view.values import values_section

EMPTY = Markup("")


def guarded(render: Callable[..., Markup], *args: Any) -> Markup:
    """A section that raises shows its traceback in place, so one bad field never loses the page."""
    try:
        return render(*args)
    except Exception:  # noqa: BLE001 - see the docstring
        return tag(
            "div",
            Markup(tag("b", "This section could not be drawn from the record:") + tag("pre", traceback.format_exc())),
            class_="section-error",
        )


def _header(record: FullRecord, why: Sequence[str], reason_text: str, nav: Markup) -> Markup:
    turns, rounds = len(record.get("transcript") or []), len(record.get("per_round") or [])
    reason = str(record.get("termination_reason", "unknown"))
    facts = [
        f"scenario {record.get('scenario', '?')}",
        f"seed {record.get('seed', '?')}",
        f"participants {record.get('participants', '?')}",
        *(f"{k} {v}" for k, v in sorted((record.get("labels") or {}).items())),
    ]
    counts = Markup(
        f'<span class="count" data-turn-count="{turns}">{turns} turns</span> · {rounds} rounds · '
        f"{fmt((record.get('timings') or {}).get('episode_seconds'))} s"
    )
    title = f"{record.get('graph', '?')} · episode {record.get('episode', '?')}"
    picked = join(tag("span", w, class_="why") for w in why)
    metrics = record.get("metrics") or {}
    chips = join(tag("span", Markup(f"{esc(k)} <b>{esc(fmt(v))}</b>"), class_="chip") for k, v in sorted(metrics.items()))
    return tag(
        "header",
        join(
            [
                nav,
                tag("h1", Markup(esc(title) + " " + picked)),
                tag("p", " · ".join(facts), class_="facts"),
                tag("p", counts),
                tag(
                    "p",
                    Markup(
                        tag("span", reason, class_=f"badge reason-{reason}")
                        + " "
                        + tag("span", reason_text, class_="explanation")
                    ),
                    class_="termination",
                ),
                tag(
                    "details", Markup(tag("summary", f"{len(metrics)} episode metrics") + tag("div", chips, class_="chips"))
                ),
            ]
        ),
        class_="page-head",
    )


def _artifacts(record: FullRecord) -> Markup:
    items = []
    for name, text in sorted((record.get("artifacts") or {}).items()):
        body = markdown(text) if name.endswith(".md") else tag("pre", text)
        items.append(tag("details", Markup(tag("summary", f"{name} ({len(text)} characters)") + body), class_="artifact"))
    return join(items) if items else tag("p", "No artifacts.", class_="muted")


def _fork(record: FullRecord) -> Markup:
    """A replayed episode beside its original: where it forks, both endings, and both continuations after the
    fork (the turns before it are the same)."""
    from dialectica.sim import records  # lazy: start-up (pydantic)

    fork, episode = record["fork"], int(record.get("episode", -1))
    original = records.GraphRecords(Path(fork["run"]) / records.FILE, str(record.get("graph"))).pick({episode}).get(episode)
    where = f"Forked from {fork['run']}, episode {episode}, after turn {fork['turn']}"
    if original is None:
        return tag("p", f"{where}; that run no longer holds the episode.", class_="muted")

    def after(r: FullRecord) -> list[dict[str, Any]]:
        return [t for t in r.get("transcript") or [] if not isinstance(t.get("round"), int) or t["round"] > fork["turn"]]

    head = tag(
        "p",
        f"{where}: the first {fork['turn']} turns are the original's. The original ended "
        f"{original.get('termination_reason')}; this replay ended {record.get('termination_reason')}.",
    )
    sides = (("The original, after the fork", original, "col-left"), ("This replay, after the fork", record, "col-right"))
    columns = [tag("div", Markup(tag("h3", title) + timeline(after(r), {})), class_=side) for title, r, side in sides]
    return join([head, tag("div", join(columns), class_="columns")])


def _usage(record: FullRecord) -> Markup:
    usage = record.get("usage") or {}
    return table(["model calls", "tokens"], [[usage.get("llm_calls"), usage.get("tokens_total")]])


def render_page(record: FullRecord, why: Sequence[str] = (), topology: Topology | None = None, nav: Markup = EMPTY) -> str:
    """The page of one episode record; fields the record lacks leave their section empty, never break it."""
    graph_view = view_for(str(record.get("graph", "")))
    reason_text = guarded(lambda: esc(explain(record, graph_view.explain, endings_for(str(record.get("graph", ""))))))
    notes = {}
    try:
        notes = graph_view.notes(record) if graph_view.notes and not record.get("error") else {}
    except Exception as exc:  # noqa: BLE001 - notes are extras; the timeline must still show
        notes = {None: [tag("div", f"notes failed: {exc!r}", class_="note note-warn")]}
    transcript = record.get("transcript") or []
    left = section("timeline", "Dialogue", guarded(timeline, transcript, notes))
    # a graph used as it is records what it ended with and ran under; native graphs show theirs in their panel
    ran = "final_state" in record or "context" in record
    right = [
        *([section("final-state", "Final state and context", guarded(values_section, record))] if ran else []),
        section("state", "Per-round state", guarded(state_section, record.get("per_round") or [])),
        section("path", "Path through the graph", guarded(path_section, record, topology)),
    ]
    # an error record holds nothing a graph's panel draws from
    below = (
        [section("graph-panel", graph_view.title, guarded(graph_view.panel, record))]
        if graph_view.title and graph_view.panel and not record.get("error")
        else []
    )
    below += [
        section("artifacts", "Artifacts", guarded(_artifacts, record)),
        section("usage", "Usage", guarded(_usage, record)),
    ]
    error = section("error", "Error", tag("pre", record["error"], class_="traceback")) if record.get("error") else ""
    fork = section("fork", "Fork: both continuations", guarded(_fork, record)) if record.get("fork") else EMPTY
    body = join(
        [
            _header(record, why, reason_text, nav),
            error,
            fork,
            tag(
                "div",
                join([tag("div", left, class_="col-left"), tag("div", join(right), class_="col-right")]),
                class_="columns",
            ),
            *below,
        ]
    )
    title = f"{record.get('graph', '?')} episode {record.get('episode', '?')}: {record.get('termination_reason', '?')}"
    return document(
        title,
        tag(
            "main",
            body,
            id="episode",
            data_graph=record.get("graph"),
            data_episode=record.get("episode"),
            data_turns=len(transcript),
            data_reason=record.get("termination_reason"),
        ),
    )


def document(title: str, body: Markup, css: str = "", script: str = "") -> str:
    """A whole page: the common stylesheet plus ``css`` inline, and ``script`` (trusted constant text, never
    data) inline at the end of the body; nothing fetched."""
    tail = f"<script>{script}</script>" if script else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{esc(title)}</title><style>{CSS}{css}</style></head>'
        f"<body>{body}{tail}</body></html>\n"
    )
