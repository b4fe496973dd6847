"""Interview: the ASCR growing turn by turn, field by field, against the persona's hidden truth."""

from __future__ import annotations

import json
from typing import Any

from dialectica.graph import GraphView
from dialectica.metrics import FullRecord
from dialectica.pages import Markup, esc, fmt, join, note, tag


def agrees(value: Any, truth: Any) -> bool:
    """Whether what the ASCR holds is true: list items and map entries all in the truth, scalars equal."""
    if isinstance(value, list) and isinstance(truth, list):
        return all(str(v) in {str(t) for t in truth} for v in value)
    if isinstance(value, dict) and isinstance(truth, dict):
        return all(k in truth and agrees(v, truth[k]) for k, v in value.items())
    return str(value) == str(truth)


def _short(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _cell(value: Any, truth: dict[str, Any] | None, field: str) -> Markup:
    if truth is None or field not in truth:
        return Markup(f"<td>{esc(_short(value))}</td>")
    return Markup(f'<td class="{"match" if agrees(value, truth[field]) else "mismatch"}">{esc(_short(value))}</td>')


def ascr_grid(record: FullRecord) -> Markup:
    """Rows are the schema's fields, columns the turns: what each turn added (or, without per-turn SCRs in the
    record, which field it asked and whether the answer was used), then the final ASCR and the hidden truth."""
    artifacts = record.get("artifacts") or {}
    final = json.loads(artifacts.get("ascr.json") or "{}")
    truth = json.loads(artifacts["truth.json"]) if artifacts.get("truth.json") else None
    turns = json.loads(artifacts["ascr_turns.json"]) if artifacts.get("ascr_turns.json") else None
    rounds = record.get("per_round") or []
    fields = list(dict.fromkeys([*(truth or {}), *final, *(r.get("field") for r in rounds if r.get("field"))]))
    head = join(tag("th", f"t{r.get('round', i + 1)}") for i, r in enumerate(rounds))
    rows = []
    for field in fields:
        cells = []
        for i, r in enumerate(rounds):
            scr = (turns[i].get("scr") or {}) if turns and i < len(turns) else None
            if scr is not None:
                cells.append(_cell(scr[field], truth, field) if field in scr else Markup("<td></td>"))
            elif r.get("field") == field:
                cells.append(
                    Markup('<td class="missing" title="answer not used">asked, wasted</td>')
                    if r.get("wasted")
                    else Markup('<td class="match" title="answer interpreted">asked, filled</td>')
                )
            else:
                cells.append(Markup("<td></td>"))
        end = _cell(final[field], truth, field) if field in final else Markup('<td class="missing">–</td>')
        known = (
            Markup(f"<td>{esc(_short(truth[field]))}</td>")
            if truth and field in truth
            else Markup('<td class="missing">–</td>')
        )
        rows.append(Markup(f"<tr><th>{esc(field)}</th>{''.join(cells)}{end}{known}</tr>"))
    grid = Markup(
        f'<table class="grid ascr"><thead><tr><th>field</th>{head}<th>final ASCR</th><th>hidden truth</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )
    notes = []
    if truth is None:
        notes.append(note("The record holds no hidden truth (artifact truth.json), so values are not checked.", "warn"))
    if turns is None:
        notes.append(
            note(
                "The record holds no per-turn SCRs (artifact ascr_turns.json): cells show which field each "
                "turn asked and whether the answer was used."
            )
        )
    return join([tag("div", grid, class_="scroll"), *notes])


def _explain(record: FullRecord) -> str:
    m = record.get("metrics") or {}
    filled = f"{fmt(m.get('depth'))} of {fmt(m.get('required_fields'))} required fields filled"
    if record.get("termination_reason") == "converged":
        return f"{filled} after {fmt(m.get('rounds'))} questions, budget used {fmt(m.get('budget_used'))}."
    return (
        f"budget used {fmt(m.get('budget_used'))} after {fmt(m.get('rounds'))} questions with {filled}; "
        f"{fmt(m.get('wasted_turns'))} answers wasted."
    )


def _notes(record: FullRecord) -> dict[Any, list[Markup]]:
    out = {}
    for r in record.get("per_round") or []:
        used = "no usable answer" if r.get("wasted") else "answer interpreted"
        out[r.get("round")] = [
            note(
                f"asked for {r.get('field')}: {used}; required filled {fmt(r.get('required_filled'))}, "
                f"recall {fmt(r.get('recall'))}",
                "warn" if r.get("wasted") else "ok",
            )
        ]
    return out


def panel(record: FullRecord) -> Markup:
    return ascr_grid(record)


VIEW = GraphView(panel, title="ASCR against the hidden truth", metric="ascr_recall", explain=_explain, notes=_notes)
