"""The graph's shape on a page: loops are back edges, layers, loop counts from visits, the visit order."""

from __future__ import annotations

from dialectica.sim.view.path import node_sequence, path_section, topology_svg
from dialectica.sim.view.topology import back_edges, layers, loop_counts

LOOP = {
    "nodes": ["__start__", "ask", "answer", "check", "report", "__end__"],
    "edges": [
        {"source": "__start__", "target": "ask", "conditional": False},
        {"source": "ask", "target": "answer", "conditional": False},
        {"source": "answer", "target": "check", "conditional": False},
        {"source": "check", "target": "ask", "conditional": True},
        {"source": "check", "target": "report", "conditional": True},
        {"source": "report", "target": "__end__", "conditional": False},
    ],
}


def test_the_edge_back_into_the_loop_is_the_only_back_edge_and_layers_follow_the_flow():
    assert back_edges(LOOP) == {("check", "ask")}
    assert layers(LOOP) == {"__start__": 0, "ask": 1, "answer": 2, "check": 3, "report": 4, "__end__": 5}


def test_loop_count_is_the_visits_the_way_in_does_not_explain():
    assert loop_counts(LOOP, {"ask": 4, "answer": 4, "check": 4, "report": 1}) == {("check", "ask"): 3}
    assert loop_counts(LOOP, {"ask": 1, "answer": 1, "check": 1}) == {("check", "ask"): 0}


def test_svg_marks_looped_and_unvisited_nodes_and_labels_the_loop():
    svg = topology_svg(LOOP, {"ask": 3, "answer": 3, "check": 3})
    assert 'class="node visited looped" data-node="ask" data-visits="3"' in svg
    assert 'class="node unvisited" data-node="report" data-visits="0"' in svg
    assert svg.count('class="loop"') == 1 and "↻2" in svg and "ask ×3" in svg


def test_path_section_without_topology_still_lists_visits_and_marks_loops(tribunal_record):
    html = path_section(tribunal_record, None)
    assert "<svg" not in html and "timings.node_path" in html
    assert html.count('class="loop-mark"') == 2  # ask and answer ran twice, close once


def test_a_recorded_visit_order_is_shown_with_repeats_marked(tribunal_record):
    tribunal_record["timings"]["node_path"] = ["ask", "answer", "ask", "answer", "close"]
    html = path_section(tribunal_record, LOOP)
    assert html.count('class="again"') == 2 and "timings.node_path" not in html
    assert node_sequence(["a", "a"]).count("<li") == 2


def test_a_recorded_visit_order_counts_the_loops_the_visit_counts_would_miss():
    edges = [("__start__", "analyst"), ("analyst", "tutor"), ("analyst", "synth"), ("tutor", "critic")]
    edges += [("critic", "tutor"), ("critic", "analyst"), ("synth", "__end__")]
    topology = {
        "nodes": ["__start__", "analyst", "tutor", "critic", "synth", "__end__"],
        "edges": [{"source": s, "target": t, "conditional": False} for s, t in edges],
    }
    assert back_edges(topology) == {("critic", "tutor"), ("critic", "analyst")}
    path = ["analyst", "tutor", "critic", "tutor", "critic", "analyst", "synth"]
    visits = {"analyst": 2, "tutor": 2, "critic": 2, "synth": 1}
    assert loop_counts(topology, visits)[("critic", "tutor")] == 0  # the analyst's two visits explain the tutor's
    assert loop_counts(topology, visits, path) == {("critic", "tutor"): 1, ("critic", "analyst"): 1}


def test_a_parallel_sibling_or_a_subgraphs_nodes_between_a_loops_ends_do_not_hide_it():
    edges = [("__start__", "draft"), ("draft", "critic"), ("draft", "checker"), ("critic", "draft")]
    edges += [("checker", "__end__"), ("critic", "__end__")]
    topology = {
        "nodes": ["__start__", "draft", "critic", "checker", "__end__"],
        "edges": [{"source": s, "target": t, "conditional": False} for s, t in edges],
    }
    assert back_edges(topology) == {("critic", "draft")}
    # the sibling started after the critic, then the loop went back: twice; a subgraph's node is not in the graph
    path = ["draft", "critic", "checker", "draft", "critic", "inner_search", "checker", "draft", "critic", "checker"]
    visits = {"draft": 3, "critic": 3, "checker": 3}
    assert loop_counts(topology, visits, path) == {("critic", "draft"): 2}
