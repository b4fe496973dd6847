"""HTML building blocks: everything that is not ``Markup`` is escaped on the way in."""

from __future__ import annotations

import html
import math
import zlib
from collections.abc import Iterable
from typing import Any

from dialectica.sim.authoring.spec import Markup  # what a graph's page panel returns


def esc(value: Any) -> Markup:
    """``value`` as safe HTML: Markup passes through, anything else is converted and escaped."""
    return value if isinstance(value, Markup) else Markup(html.escape(str(value), quote=True))


def join(parts: Iterable[Any], sep: str = "") -> Markup:
    return Markup(sep.join(esc(p) for p in parts))


def tag(name: str, body: Any = "", **attrs: Any) -> Markup:
    """``<name attrs>body</name>``; attribute names take ``_`` for ``-`` (``data_turn``) and ``class_``."""
    text = "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in attrs.items() if v is not None)
    return Markup(f"<{name}{text}>{esc(body)}</{name}>")


def number(value: Any) -> float | None:
    """A finite float, or None for anything else (booleans, NaN, strings)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def fmt(value: Any) -> str:
    """Short display text: 3 significant digits for floats (whole digits kept up to a million: 3780, not 3.78e+03),
    yes/no for booleans, a dash for missing."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.0f}" if 999.5 <= abs(value) < 1e6 else f"{value:.3g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(v) for v in value)
    return str(value)


def table(header: Iterable[Any], rows: Iterable[Iterable[Any]], class_: str = "grid") -> Markup:
    head = join(tag("th", h) for h in header)
    body = join(tag("tr", join(tag("td", c if isinstance(c, Markup) else fmt(c)) for c in row)) for row in rows)
    return tag("table", Markup(f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody>"), class_=class_)


def section(id_: str, title: str, body: Any) -> Markup:
    return tag("section", Markup(tag("h2", title) + esc(body)), id=id_)


def note(text: Any, kind: str = "info") -> Markup:
    return tag("div", text, class_=f"note note-{kind}")


def hue(name: str) -> int:
    """A stable colour hue per name, so a speaker keeps their colour across pages."""
    return zlib.crc32(name.encode()) % 360


def markdown(text: str) -> Markup:
    """Markdown to HTML with raw HTML disabled, so model text cannot inject markup."""
    from markdown_it import MarkdownIt

    return Markup(MarkdownIt("commonmark", {"html": False}).enable("table").render(text))


def md_section(text: str, heading: str) -> str | None:
    """The body under the markdown heading whose title starts with ``heading``, up to the next heading
    of the same or a higher level; None when there is no such heading."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        level = len(line) - len(line.lstrip("#"))
        if level and line[level:].strip().startswith(heading):
            end = next(
                (
                    j
                    for j in range(i + 1, len(lines))
                    if lines[j].startswith("#") and len(lines[j]) - len(lines[j].lstrip("#")) <= level
                ),
                len(lines),
            )
            return "\n".join(lines[i + 1 : end]).strip()
    return None
