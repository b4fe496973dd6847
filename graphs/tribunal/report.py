"""The tribunal's markdown report, full or partial (whatever state exists when an error stopped it)."""

from __future__ import annotations

from dialectica.graphs.tribunal.state import TribunalState


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)


def render_report(state: TribunalState, partial: bool) -> str:
    lines = [f"# Audit report{' (PARTIAL)' if partial else ''}", "", f"**Case:** {state.get('subject', '')}", ""]
    if partial:
        lines += ["## Errors", *[f"- {e['layer']} / {e['branch']}: {e['error']}" for e in state.get("errors", [])], ""]
    evidence = state.get("evidence", [])
    lines += ["## Evidence", f"{sum(e['found'] for e in evidence)} of {len(evidence)} items found.", ""]
    lines += [f"- {e['id']} ({e['collector']}, {'found' if e['found'] else 'not found'}): {e['content']}" for e in evidence]
    verdicts = state.get("verdicts", [])
    if verdicts:
        lines += [
            "",
            "## Verdicts",
            "",
            "| criterion | dimension | score | passed | voices | spread | rules |",
            "|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {v['criterion']} | {v['dimension']} | {_num(v['score'])} | {'yes' if v['passed'] else 'no'} | "
            f"{v['voices']} | {_num(v['spread'])}{' (contested)' if v['contested'] else ''} | "
            f"{', '.join(v['rules']) or '-'} |"
            for v in verdicts
        ]
    trace = state.get("applied_rules", [])
    if trace:
        lines += [
            "",
            "## Applied rules",
            *[f"- round {t['round']}, {t['criterion']}: {t['rule']}: {t['why']}" for t in trace],
        ]
    if state.get("reevaluations"):
        lines += ["", f"The bench was sent back {state['reevaluations']} time(s): {state.get('chief_feedback', '')}"]
    if verdicts and not partial and not state.get("converged"):
        still = ", ".join(v["criterion"] for v in verdicts if v["contested"])
        lines += ["", f"No consensus: the bench still disagrees on {still} with no re-evaluation left."]
    return "\n".join(lines) + "\n"
