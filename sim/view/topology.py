"""A graph's nodes and edges as plain data, and a layered layout in which loops are the back edges."""

from __future__ import annotations

from typing import Any

from dialectica.sim.authoring.params import ConfigError

START, END = "__start__", "__end__"
Topology = dict[str, list[Any]]


def topology_of(compiled: Any) -> Topology:
    """``{"nodes": [...], "edges": [{"source", "target", "conditional"}]}`` of a compiled LangGraph graph."""
    drawable = compiled.get_graph()
    return {
        "nodes": list(drawable.nodes),
        "edges": [{"source": e.source, "target": e.target, "conditional": bool(e.conditional)} for e in drawable.edges],
    }


def graph_topology(spec: Any) -> Topology | None:
    """The shape of a graph's compiled graph; None if reading it fails, for the shape is a picture, not
    something a run may fail on."""
    try:
        return topology_of(spec.compiled())
    except Exception:  # noqa: BLE001 - see the docstring
        return None


def back_edges(topology: Topology) -> set[tuple[str, str]]:
    """Edges that close a loop: depth-first from the start, an edge into a node still on the path."""
    out: dict[str, list[str]] = {}
    for e in topology["edges"]:
        out.setdefault(e["source"], []).append(e["target"])
    nodes = list(topology["nodes"])
    roots = [START] if START in out else nodes[:1]
    state: dict[str, int] = {}  # 1 on the path, 2 done
    found: set[tuple[str, str]] = set()
    for root in roots + nodes:
        if root in state:
            continue
        stack = [(root, iter(out.get(root, [])))]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                found.add((node, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(out.get(child, []))))
    return found


def layers(topology: Topology) -> dict[str, int]:
    """Each node's layer: the longest path to it from a source, loops left out."""
    loops = back_edges(topology)
    preds: dict[str, list[str]] = {n: [] for n in topology["nodes"]}
    for e in topology["edges"]:
        if (e["source"], e["target"]) not in loops and e["target"] in preds and e["source"] in preds:
            preds[e["target"]].append(e["source"])
    depth: dict[str, int] = {}

    def visit(node: str, seen: frozenset[str]) -> int:
        if node not in depth:
            depth[node] = 1 + max((visit(p, seen | {node}) for p in preds[node] if p not in seen), default=-1)
        return depth[node]

    for node in topology["nodes"]:
        visit(node, frozenset())
    return depth


def loop_counts(topology: Topology, visits: dict[str, int], path: list[str] | None = None) -> dict[tuple[str, str], int]:
    """How often each back edge was taken: from the visit order, where the record has one (``path``, the nodes in
    the order they started), else estimated from visit counts (the target's visits beyond the most that any
    forward predecessor accounts for; the start counts once), which falls short where a node with an edge into
    the target left it the other way on its last visit.

    In the visit order, a visit of a loop's target came through the loop when, of the graph's nodes with an edge
    into the target, the loop's source ran last before it: a parallel sibling, or a subgraph's own nodes, may run
    between the two."""
    loops = back_edges(topology)
    if path:
        into: dict[str, set[str]] = {}
        for e in topology["edges"]:
            into.setdefault(e["target"], set()).add(e["source"])
        counts = dict.fromkeys(loops, 0)
        last: dict[str, int] = {}  # node -> where it last ran
        for i, node in enumerate(n for n in path if n in topology["nodes"]):
            came = max(into.get(node, ()), key=lambda n: last.get(n, -1), default=None)
            if came is not None and (came, node) in counts and came in last:
                counts[(came, node)] += 1
            last[node] = i
        return counts
    counts = {}
    for source, target in loops:
        forward = [e["source"] for e in topology["edges"] if e["target"] == target and (e["source"], target) not in loops]
        entries = max((1 if p == START else visits.get(p, 0) for p in forward), default=0)
        counts[(source, target)] = max(0, visits.get(target, 0) - entries)
    return counts


def default_topology(graph: str) -> Topology | None:
    """The shape of ``graph``, for runs that saved none; None for a graph not installed here."""
    from dialectica.sim.config import discovery  # lazy: start-up (yaml)

    try:
        return graph_topology(discovery.load(graph))
    except ConfigError:
        return None
