"""A replay's paired report (``replay.json``, ``replay.md``): per graph the McNemar test and the paired bootstrap
interval that sweeps use, the episodes whose prefix differs from the original's, and for each episode whose ending
changed, both endings. The runner writes it after a replay's episodes (``dialectica replay``: ``engine.replay``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from dialectica.metrics import FullRecord, converged

FILE = "replay.json"


def _records(path: Path) -> dict[tuple[str, int], FullRecord]:
    from dialectica.sim import records  # lazy: start-up (pydantic)

    return {(r["graph"], r["episode"]): r for r in records.read(path / records.FILE)}


def _prefix(record: FullRecord, turn: int) -> list[tuple[Any, ...]]:
    """What a record says of its first ``turn`` turns (the transcript's rounds up to it)."""
    return [
        (t.get("round"), t.get("speaker"), t.get("text"))
        for t in record.get("transcript") or []
        if isinstance(t.get("round"), int) and t["round"] <= turn
    ]


def paired_report(original: Path, forked: Path, turn: int) -> dict[str, Any]:
    """Per graph: episodes paired, each side's convergence rate, McNemar and the paired bootstrap interval of
    the difference (replay minus original), the episodes whose ending changed, and those whose first ``turn``
    turns differ from the original's (the config changed something before the fork)."""
    from dialectica.metrics.paired import compare  # lazy: start-up (scipy, numpy)

    before, after = _records(original), _records(forked)
    report: dict[str, Any] = {
        "original": str(original.resolve()),
        "replay": str(forked.resolve()),
        "from_turn": turn,
        "graphs": {},
    }
    for graph in sorted({g for g, _ in after}):
        keys = sorted(k for k in after if k[0] == graph and k in before)
        if not keys:
            continue
        result = compare({k: converged(after[k]) for k in keys}, {k: converged(before[k]) for k in keys})
        changed = [
            {"episode": k[1], "original": before[k]["termination_reason"], "replay": after[k]["termination_reason"]}
            for k in keys
            if before[k]["termination_reason"] != after[k]["termination_reason"]
        ]
        report["graphs"][graph] = {
            "pairs": result.pairs,
            "original_rate": sum(converged(before[k]) for k in keys) / len(keys),
            "replay_rate": sum(converged(after[k]) for k in keys) / len(keys),
            "diff": result.diff,
            "diff_ci95_low": result.low,
            "diff_ci95_high": result.high,
            "p_mcnemar": result.p,
            "decided_at": result.decided_at,  # anytime-valid: the pairs after which it was decided (None: not)
            "changed": changed,
            "prefix_differs": [k[1] for k in keys if _prefix(before[k], turn) != _prefix(after[k], turn)],
            # forks that went on from the original's kept checkpoints (authoring/history): their prefix is the original's
            "restored": [k[1] for k in keys if (after[k].get("fork") or {}).get("restored")],
        }
    return report


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# Replay from turn {report['from_turn']}: {report['replay']} against {report['original']}",
        "",
        "| graph | pairs | original rate | replay rate | difference (95% paired CI) | McNemar p | decided (anytime) "
        "| endings changed | restored from checkpoints |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for graph, g in report["graphs"].items():
        decided = "no" if g.get("decided_at") is None else f"at pair {g['decided_at']}"
        lines.append(
            f"| {graph} | {g['pairs']} | {g['original_rate']:.3f} | {g['replay_rate']:.3f} | {g['diff']:+.3f} "
            f"({g['diff_ci95_low']:+.3f} to {g['diff_ci95_high']:+.3f}) | {g['p_mcnemar']:.3g} | {decided} | "
            f"{len(g['changed'])} | {len(g['restored'])} |"
        )
    lines += [
        "",
        "Difference, interval and p are fixed-sample; decided: after how many pairs an anytime-valid test "
        "(sequential McNemar, 5%) decided, where a replay could have stopped.",
    ]
    for graph, g in report["graphs"].items():
        if g["changed"]:
            lines += ["", f"## {graph}: endings changed", ""]
            lines += [f"- episode {c['episode']}: {c['original']} -> {c['replay']}" for c in g["changed"]]
    return "\n".join(lines) + "\n"


def write_report(original: Path, forked: Path, turn: int) -> dict[str, Any]:
    """Writes ``replay.json`` and ``replay.md`` into ``forked``; says on stderr where a prefix differs."""
    report = paired_report(original, forked, turn)
    (forked / FILE).write_text(json.dumps(report, indent=2))
    (forked / "replay.md").write_text(markdown(report))
    for graph, g in report["graphs"].items():
        if g["prefix_differs"]:
            print(
                f"dialectica: warning: graph {graph}: {len(g['prefix_differs'])} episodes' first {turn} turns differ "
                f"from {original}'s (episodes {', '.join(map(str, g['prefix_differs'][:5]))}): the overrides act "
                "before the fork (the cast, the scenarios or the model), so the pairs share less history",
                file=sys.stderr,
            )
    return report
