"""Tribunal: the rule engine's applied-rules trace, the verdicts, the bench's scores by round, and each layer's
branch timings."""

from __future__ import annotations

import json
import re
from typing import Any

from dialectica.graph import GraphView
from dialectica.metrics import FullRecord
from dialectica.pages import Markup, fmt, hbars, join, markdown, md_section, note, table, tag

_RULE_LINE = re.compile(r"^- round (\d+), (.+)$")


def applied_rules(report: str) -> list[tuple[int, str]]:
    """(round, "criterion: rule: reason") for each line of the report's "Applied rules" section."""
    body = md_section(report, "Applied rules") or ""
    return [(int(m.group(1)), m.group(2)) for m in map(_RULE_LINE.match, body.splitlines()) if m]


def branch_timings(timings: dict[str, Any]) -> Markup:
    """Per layer and round: each branch's seconds (timed-out branches red) against the layer's wall time."""
    layers = timings.get("layers") or []
    branches = timings.get("branches") or []
    if not branches and not layers:
        return tag("p", "The record has no branch timings.", class_="muted")
    keys = list(dict.fromkeys((b.get("layer"), b.get("round", 0)) for b in branches))
    keys += [k for k in ((w.get("layer"), w.get("round", 0)) for w in layers) if k not in keys]
    parts = []
    for layer, round_no in keys:
        mine = [b for b in branches if b.get("layer") == layer and b.get("round", 0) == round_no]
        wall = next(
            (w.get("wall_seconds") for w in layers if (w.get("layer"), w.get("round", 0)) == (layer, round_no)), None
        )
        rows = [(str(b.get("branch")), float(b.get("seconds") or 0.0), "bad" if b.get("timed_out") else "") for b in mine]
        if wall is not None:
            rows.append(("layer wall time", float(wall), "wall"))
        total = sum(r[1] for r in rows if r[2] != "wall")
        speedup = f", speed-up {total / wall:.2f}× over running them one by one" if wall and len(mine) > 1 else ""
        title = f"{layer} layer" + (f", round {round_no}" if round_no else "") + f": {len(mine)} branches{speedup}"
        parts.append(Markup(tag("h3", title) + hbars(rows, " s")))
    return join(parts)


def _explain(record: FullRecord) -> str:
    m = record.get("metrics") or {}
    if record.get("termination_reason") == "partial_report":
        return (
            f"{fmt(m.get('crashes'))} branch crash(es) and {fmt(m.get('timeouts'))} branch timeouts; "
            "the ErrorHandler wrote a partial report."
        )
    head = (
        f"after {fmt(m.get('rounds'))} judging round(s) and {fmt(m.get('reevaluations'))} re-evaluations: "
        f"{fmt(m.get('criteria_passed'))} criteria passed, largest score spread {fmt(m.get('score_spread'))}"
    )
    if record.get("termination_reason") == "max_rounds":
        return f"no consensus {head}, {fmt(m.get('contested_criteria'))} criteria still contested."
    return f"full verdict {head}."


def rulings(record: FullRecord) -> dict[str, Any]:
    """The record's ``rulings.json`` (thresholds, then per round decision, contested criteria, verdicts, rules)."""
    text = (record.get("artifacts") or {}).get("rulings.json")
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return {}


def bench_scores(record: FullRecord) -> Markup:
    """Per round, each judge's score on each criterion (a fallback in brackets), contested criteria marked."""
    turns = [t for t in record.get("transcript") or [] if t.get("role") == "participant" and t.get("opinions")]
    if not turns:
        return tag("p", "No judge's opinion in the record.", class_="muted")
    contested = {r.get("round"): set(r.get("contested") or []) for r in rulings(record).get("rounds", [])}
    judges = list(dict.fromkeys(t["speaker"] for t in turns))
    rows = []
    for round_no in sorted({t["round"] for t in turns}):
        mine = {t["speaker"]: {o["criterion"]: o for o in t["opinions"]} for t in turns if t["round"] == round_no}
        for criterion in dict.fromkeys(c for ops in mine.values() for c in ops):
            cells = []
            for judge in judges:
                op = mine.get(judge, {}).get(criterion)
                cells.append("" if op is None else f"{op['score']}" if op.get("parsed") else f"({op['score']})")
            flag = "contested" if criterion in contested.get(round_no, set()) else ""
            rows.append([round_no, criterion, *cells, flag])
    return table(["round", "criterion", *judges, ""], rows)


def _notes(record: FullRecord) -> dict[Any, list[Markup]]:
    out: dict[Any, list[Markup]] = {}
    for round_no, text in applied_rules((record.get("artifacts") or {}).get("report.md", "")):
        out.setdefault(round_no, []).append(note(f"rule applied: {text}"))
    for row in record.get("per_round") or []:
        out.setdefault(row.get("round"), []).append(
            note(
                f"score spread {fmt(row.get('score_spread'))}, dispersion {fmt(row.get('score_dispersion'))}, "
                f"{fmt(row.get('voices'))} voices (quorum {fmt(row.get('quorum'))})"
            )
        )
    for ruling in rulings(record).get("rounds", []):
        if ruling.get("contested"):
            verb = "sent back" if ruling.get("decision") == "reevaluate" else "still apart, no re-evaluation left"
            out.setdefault(ruling.get("round"), []).append(
                note(f"contested: {', '.join(ruling['contested'])} ({verb})", "warn")
            )
    return out


def panel(record: FullRecord) -> Markup:
    report = (record.get("artifacts") or {}).get("report.md", "")
    rules = applied_rules(report)
    counts = {k.split("/", 1)[1]: v for k, v in (record.get("metrics") or {}).items() if k.startswith("rules/")}
    parts = [
        tag("h3", f"Applied rules ({len(rules)})"),
        table(["round", "criterion: rule: reason"], rules) if rules else tag("p", "No rule fired.", class_="muted"),
    ]
    if counts:
        fired = ", ".join(f"{k} ×{fmt(v)}" for k, v in sorted(counts.items()))
        parts.append(tag("p", f"last round: {fired}", class_="muted"))
    verdicts = md_section(report, "Verdicts")
    parts.append(
        Markup(tag("h3", "Verdicts") + markdown(verdicts)) if verdicts else note("The report has no verdicts.", "warn")
    )
    parts.append(Markup(tag("h3", "The bench's scores") + bench_scores(record)))
    parts.append(branch_timings(record.get("timings") or {}))
    return join(parts)


VIEW = GraphView(
    panel, title="Rules trace, the bench's scores and branch timings", metric="-score_spread", explain=_explain, notes=_notes
)
