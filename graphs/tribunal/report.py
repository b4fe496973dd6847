"""The tribunal's markdown report, full or partial (whatever state exists when an error stopped it)."""

from __future__ import annotations

from dialectica.graphs.tribunal.state import TribunalState


def render_report(state: TribunalState, partial: bool) -> str:
    lines = [f"# Audit report{' (PARTIAL)' if partial else ''}", "", f"**Case:** {state.get('subject', '')}", ""]
    if partial:
        lines += ["## Errors", *[f"- {e['layer']} / {e['branch']}: {e['error']}" for e in state.get("errors", [])], ""]
    evidence = state.get("evidence", [])
    lines += ["## Evidence", f"{sum(e['found'] for e in evidence)} of {len(evidence)} items found.", ""]
    lines += [f"- {e['id']} ({e['collector']}, {'found' if e['found'] else 'not found'}): {e['content']}" for e in evidence]
    verdicts = state.get("verdicts", [])
    if verdicts:
        lines += ["", "## Verdicts", "", "| criterion | dimension | score | passed | spread | rules |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {v['criterion']} | {v['dimension']} | {v['score']:.2f} | {'yes' if v['passed'] else 'no'} | "
                  f"{v['spread']} | {', '.join(v['rules']) or '-'} |" for v in verdicts]
    trace = state.get("applied_rules", [])
    if trace:
        lines += ["", "## Applied rules",
                  *[f"- round {t['round']}, {t['criterion']}: {t['rule']}: {t['why']}" for t in trace]]
    if state.get("reevaluations"):
        lines += ["", f"The bench was sent back {state['reevaluations']} time(s): {state.get('chief_feedback', '')}"]
    return "\n".join(lines) + "\n"
