"""Small inline SVG charts (no scripts, no external files): values by round, strips, bars, swimlanes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dialectica.sim.view.markup import Markup, esc, fmt, hue, join, number, tag


def _svg(width: float, height: float, body: str, label: str, class_: str) -> Markup:
    return Markup(
        f'<svg class="{class_}" viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" '
        f'height="{height:.0f}" role="img" aria-label="{esc(label)}">{body}</svg>'
    )


def y_range(values: Sequence[float]) -> tuple[float, float]:
    """0..1 for shares, else from min(0, lowest) to the highest; never an empty range."""
    low, high = min(values), max(values)
    if low >= 0 and high <= 1:
        return 0.0, 1.0
    low = min(low, 0.0)
    return (low, high) if high > low else (low, low + 1.0)


def line_chart(
    title: str, values: Sequence[Any], rounds: Sequence[Any] | None = None, width: int = 210, height: int = 74
) -> Markup:
    """A value per round as a line with a dot per round; missing values leave gaps."""
    rounds = list(rounds) if rounds is not None else list(range(1, len(values) + 1))
    points = [(i, number(v)) for i, v in enumerate(values)]
    finite = [v for _, v in points if v is not None]
    left, right, top, bottom = 30, 8, 6, 16
    if not finite:
        return tag("figure", Markup(tag("figcaption", title) + tag("p", "no values", class_="muted")), class_="chart")
    low, high = y_range(finite)
    step = (width - left - right) / max(1, len(values) - 1)

    def xy(i: int, v: float) -> tuple[float, float]:
        return left + i * step, top + (1 - (v - low) / (high - low)) * (height - top - bottom)

    body = [
        f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}"/>',
        f'<text class="tick" x="{left - 3}" y="{top + 7}" text-anchor="end">{fmt(high)}</text>',
        f'<text class="tick" x="{left - 3}" y="{height - bottom}" text-anchor="end">{fmt(low)}</text>',
    ]
    segment: list[str] = []
    for i, v in [*points, (len(points), None)]:
        if v is None:
            if len(segment) > 1:
                body.append(f'<polyline class="line" points="{" ".join(segment)}"/>')
            segment = []
            continue
        x, y = xy(i, v)
        segment.append(f"{x:.1f},{y:.1f}")
        body.append(
            f'<circle class="dot" cx="{x:.1f}" cy="{y:.1f}" r="2.6"><title>round {esc(rounds[i])}: {fmt(v)}</title></circle>'
        )
    for i in sorted({0, len(values) - 1}):
        body.append(
            f'<text class="tick" x="{left + i * step:.1f}" y="{height - 3}" text-anchor="middle">{esc(rounds[i])}</text>'
        )
    last = finite[-1]
    caption = Markup(f"{esc(title)} <b>{fmt(last)}</b>")
    return tag(
        "figure",
        Markup(tag("figcaption", caption) + _svg(width, height, "".join(body), title, "line-chart")),
        class_="chart",
    )


def strip(title: str, values: Sequence[Any], rounds: Sequence[Any] | None = None) -> Markup:
    """Yes/no per round as a row of cells: filled for true, hollow for false, dashed for missing."""
    rounds = list(rounds) if rounds is not None else list(range(1, len(values) + 1))
    size, gap = 14, 3
    cells = []
    for i, v in enumerate(values):
        state = "yes" if v is True else "no" if v is False else "na"
        cells.append(
            f'<rect class="cell cell-{state}" x="{i * (size + gap)}" y="2" width="{size}" height="{size}" rx="2">'
            f"<title>round {esc(rounds[i])}: {fmt(v)}</title></rect>"
        )
    width = max(size, len(values) * (size + gap))
    caption = Markup(f"{esc(title)} <b>{sum(v is True for v in values)}/{len(values)}</b>")
    return tag(
        "figure", Markup(tag("figcaption", caption) + _svg(width, size + 4, "".join(cells), title, "strip")), class_="chart"
    )


def hbars(rows: Sequence[tuple[str, float, str]], unit: str = "", width: int = 420, scale: float | None = None) -> Markup:
    """Horizontal bars: (label, value, css class) each; ``scale`` fixes the value at full width."""
    label_w, bar_h, gap = 150, 14, 5
    top = scale or max((v for _, v, _ in rows), default=0.0) or 1.0
    body = []
    for i, (label, value, class_) in enumerate(rows):
        y = i * (bar_h + gap)
        w = max(1.0, (width - label_w - 70) * min(value, top) / top)
        body.append(
            f'<text class="tick" x="{label_w - 4}" y="{y + bar_h - 3}" text-anchor="end">{esc(label)}</text>'
            f'<rect class="bar {esc(class_)}" x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}">'
            f"<title>{esc(label)}: {fmt(value)}{esc(unit)}</title></rect>"
            f'<text class="tick" x="{label_w + w + 4:.1f}" y="{y + bar_h - 3}">{fmt(value)}{esc(unit)}</text>'
        )
    return _svg(width, max(bar_h, len(rows) * (bar_h + gap)), "".join(body), "bars", "bars")


def speaker_colour(name: str, light: bool = False) -> str:
    return f"hsl({hue(name)}, 55%, 93%)" if light else f"hsl({hue(name)}, 50%, 38%)"


LANE_LEFT = 150  # room for the lane labels


def lane_frame(
    lanes: Sequence[str], rounds: Sequence[Any], step: float, lane: float, prefix: str = ""
) -> tuple[float, float, list[str]]:
    """The background of a lane chart, item ``i`` at x = LANE_LEFT + step * (i + 1/2): a labelled line per lane,
    and a dashed line with the round's label where the round changes. Returns width, height and the SVG parts."""
    width, height = LANE_LEFT + step * len(rounds) + 10, lane * len(lanes) + 16
    body = [
        f'<text class="tick" x="{LANE_LEFT - 6}" y="{(i + 0.5) * lane + 4:.1f}" text-anchor="end">{esc(name)}</text>'
        f'<line class="lane" x1="{LANE_LEFT}" y1="{(i + 0.5) * lane:.1f}" x2="{width - 6:.1f}" '
        f'y2="{(i + 0.5) * lane:.1f}"/>'
        for i, name in enumerate(lanes)
    ]
    previous = object()
    for i, round_no in enumerate(rounds):
        if round_no != previous:
            x = LANE_LEFT + step * i
            body.append(
                f'<line class="round-sep" x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height - 14}"/>'
                f'<text class="tick" x="{x + 2:.1f}" y="{height - 3}">{esc(prefix)}{esc(round_no)}</text>'
            )
            previous = round_no
    return width, height, body


def swimlane(turns: Sequence[dict[str, Any]]) -> Markup:
    """Every turn as a dot on its speaker's lane, in order, with a line between rounds."""
    speakers = list(dict.fromkeys(str(t.get("speaker", "?")) for t in turns))
    if not speakers:
        return Markup("")
    step, lane = max(4.0, min(16.0, 640 / len(turns))), 16
    width, height, body = lane_frame(speakers, [t.get("round", "") for t in turns], step, lane)
    for i, t in enumerate(turns):
        speaker = str(t.get("speaker", "?"))
        snippet = str(t.get("text", ""))[:120]
        body.append(
            f'<a href="#turn-{i}"><circle cx="{LANE_LEFT + step * (i + 0.5):.1f}" '
            f'cy="{(speakers.index(speaker) + 0.5) * lane:.1f}" r="{min(5.0, step / 2):.1f}" '
            f'fill="{speaker_colour(speaker)}"><title>turn {i + 1}, round {esc(t.get("round", ""))}, '
            f"{esc(speaker)}: {esc(snippet)}</title></circle></a>"
        )
    return _svg(width, height, "".join(body), "turns by speaker", "swimlane")


def legend(items: Sequence[tuple[str, str]]) -> Markup:
    """Colour keys: (label, css colour) each."""
    return tag(
        "div",
        join(Markup(f'<span class="key"><i style="background:{esc(c)}"></i>{esc(label)}</span>') for label, c in items),
        class_="legend",
    )
