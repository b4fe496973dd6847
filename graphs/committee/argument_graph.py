"""The argument graph: claims and rebuttals as nodes, supports / opposes edges (networkx)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

ARGUING_PHASES = ("opening", "evidence", "rebuttal", "synthesis")


def build(statements: Sequence[dict[str, Any]]) -> nx.DiGraph:
    """One node per argued statement; a rebuttal opposes its target's latest earlier statement, and a
    claim supports an earlier claim of another member with the same position that cites the same evidence."""
    graph = nx.DiGraph()
    latest: dict[str, str] = {}
    for i, s in enumerate(statements):
        if s["phase"] not in ARGUING_PHASES or s.get("position") is None:
            continue
        node = f"{s['member']}:{s['round']}:{s['phase']}"
        kind = "rebuttal" if s["phase"] == "rebuttal" else "claim"
        graph.add_node(
            node,
            member=s["member"],
            round=s["round"],
            phase=s["phase"],
            type=kind,
            position=s["position"],
            cited=list(s["cited"]),
            order=i,
        )
        if kind == "rebuttal" and s.get("target") in latest:
            graph.add_edge(node, latest[s["target"]], relationship="opposes")
        elif kind == "claim":
            for other, data in list(graph.nodes(data=True)):
                if (
                    other != node
                    and data["member"] != s["member"]
                    and data["type"] == "claim"
                    and data["position"] == s["position"]
                    and set(data["cited"]) & set(s["cited"])
                ):
                    graph.add_edge(node, other, relationship="supports")
        latest[s["member"]] = node
    return graph


def longest_rebuttal_chain(graph: nx.DiGraph) -> int:
    """Edges on the longest path of ``opposes`` edges (rebuttals of rebuttals ...); 0 without rebuttals."""
    opposes = nx.DiGraph((u, v) for u, v, d in graph.edges(data=True) if d["relationship"] == "opposes")
    return nx.dag_longest_path_length(opposes) if opposes.number_of_edges() else 0


def to_json(graph: nx.DiGraph) -> dict[str, Any]:
    data: dict[str, Any] = nx.node_link_data(graph, edges="edges")
    return data
