"""The path through the graph: the graph's shape with each node's visits, loops marked, and a visit table."""

from __future__ import annotations

from dialectica.metrics import FullRecord
from dialectica.sim.view.markup import Markup, esc, join, note, table, tag
from dialectica.sim.view.topology import END, START, Topology, back_edges, layers, loop_counts

_H, _GAP_X, _GAP_Y, _CHAR = 24, 14, 16, 6.6  # _CHAR: width of one label character


def visits_of(record: FullRecord) -> dict[str, int]:
    """Runs per node, from the node timings every record carries."""
    return {n: len(s) for n, s in ((record.get("timings") or {}).get("node_seconds") or {}).items()}


def _label(node: str) -> str:
    return {START: "start", END: "end"}.get(node, node)


def topology_svg(topology: Topology, visits: dict[str, int], path: list[str] | None = None) -> Markup:
    """Nodes in layers from the top, forward edges straight, loops as arcs on the right with how often they were
    taken (from the visit order ``path`` where there is one)."""
    depth = layers(topology)
    box = max(120.0, _CHAR * max(len(_label(n)) + 4 for n in topology["nodes"]) + 16)
    rows: dict[int, list[str]] = {}
    for node in topology["nodes"]:
        rows.setdefault(depth[node], []).append(node)
    widest = max(len(r) for r in rows.values())
    width = widest * (box + _GAP_X) + 120
    pos = {}
    for d, nodes in rows.items():
        offset = (width - 120 - len(nodes) * (box + _GAP_X)) / 2
        for i, node in enumerate(nodes):
            pos[node] = (offset + i * (box + _GAP_X) + _GAP_X / 2, d * (_H + _GAP_Y) + 6)
    loops = back_edges(topology)
    counts = loop_counts(topology, visits, path)
    body = []
    for e in topology["edges"]:
        (x1, y1), (x2, y2) = pos[e["source"]], pos[e["target"]]
        if (e["source"], e["target"]) in loops:
            continue
        dashed = " conditional" if e["conditional"] else ""
        body.append(
            f'<line class="edge{dashed}" x1="{x1 + box / 2:.1f}" y1="{y1 + _H:.1f}" x2="{x2 + box / 2:.1f}" '
            f'y2="{y2:.1f}" marker-end="url(#arrow)"/>'
        )
    right = max(x for x, _ in pos.values()) + box
    for k, (source, target) in enumerate(sorted(loops, key=lambda e: pos[e[0]][1] - pos[e[1]][1])):
        (x1, y1), (x2, y2) = pos[source], pos[target]
        bend = right + 24 + 22 * k
        body.append(
            f'<path class="loop" d="M {x1 + box:.1f} {y1 + _H / 2:.1f} C {bend:.1f} {y1 + _H / 2:.1f}, {bend:.1f} '
            f'{y2 + _H / 2:.1f}, {x2 + box:.1f} {y2 + _H / 2:.1f}" marker-end="url(#arrow-loop)">'
            f"<title>loop {esc(source)} → {esc(target)}: taken {counts[(source, target)]} times</title></path>"
            f'<text class="loop-label" x="{bend + 3:.1f}" y="{(y1 + y2) / 2 + _H / 2 + 4:.1f}">'
            f"↻{counts[(source, target)]}"
            f"</text>"
        )
    for node, (x, y) in pos.items():
        n = visits.get(node, 0)
        kind = "terminal" if node in (START, END) else "visited" if n else "unvisited"
        kind += " looped" if n > 1 else ""
        text = _label(node) + (f" ×{n}" if n > 1 else "")
        body.append(
            f'<g class="node {kind}" data-node="{esc(node)}" data-visits="{n}"><rect x="{x:.1f}" y="{y:.1f}" '
            f'width="{box:.0f}" height="{_H}" rx="5"/><text x="{x + box / 2:.1f}" y="{y + _H / 2 + 4:.1f}" '
            f'text-anchor="middle">{esc(text)}</text><title>{esc(node)}: {n} run(s)</title></g>'
        )
    height = (max(depth.values()) + 1) * (_H + _GAP_Y) + 8
    defs = (
        '<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" class="arrowhead"/></marker><marker id="arrow-loop" viewBox="0 0 8 8" refX="7" '
        'refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" class="arrowhead-loop"/>'
        "</marker></defs>"
    )
    return Markup(
        f'<svg class="topology" viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
        f'role="img" aria-label="graph with node visits">{defs}{"".join(body)}</svg>'
    )


def node_sequence(path: list[str]) -> Markup:
    """The visit order, where the record has it; a node seen before starts a new loop pass."""
    seen: set[str] = set()
    items = []
    for node in path:
        again = node in seen
        seen.add(node)
        items.append(tag("li", node, class_="again" if again else None, title="visited before: loop" if again else None))
    return tag("ol", join(items), class_="sequence")


def path_section(record: FullRecord, topology: Topology | None) -> Markup:
    """Shape with visits (when the topology is known), the visit order (when recorded), and the visit table."""
    visits = visits_of(record)
    timings = record.get("timings") or {}
    usage = record.get("usage") or {}
    parts = []
    if topology:
        parts.append(topology_svg(topology, visits, list(timings.get("node_path") or []) or None))
        order = [n for n in topology["nodes"] if n in visits] + sorted(set(visits) - set(topology["nodes"]))
    else:
        order = sorted(visits, key=lambda n: (-visits[n], n))
    if timings.get("node_path"):
        parts.append(Markup(tag("h3", "Visit order") + node_sequence(list(timings["node_path"]))))
    else:
        parts.append(note("Visit counts come from the node timings; the record has no visit order (timings.node_path)."))
    seconds = timings.get("node_seconds") or {}
    rows = [
        [
            Markup(
                esc(n)
                + (Markup(' <span class="loop-mark" title="visited more than once">↻</span>') if visits[n] > 1 else "")
            ),
            visits[n],
            sum(seconds[n]),
            1000 * sum(seconds[n]) / max(1, visits[n]),
            (usage.get("calls_by_node") or {}).get(n, 0),
            (usage.get("tokens_by_node") or {}).get(n, 0),
        ]
        for n in order
    ]
    parts.append(table(["node", "visits", "seconds", "ms per visit", "model calls", "tokens"], rows))
    return join(parts)
