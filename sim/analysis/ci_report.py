"""What ``dialectica compare --out DIR`` writes for a CI system: ``comparison.json`` (everything),
``comparison.md`` (a job summary: GitHub's ``$GITHUB_STEP_SUMMARY``, GitLab's or Jenkins' report pages)
and ``junit.xml`` (one test case per graph and metric, failed where the metric regressed)."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dialectica.sim.analysis.compare import rate_interval

Row = tuple[str, "float | None", "float | None", str]  # metric, baseline, now, verdict


def _number(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and not math.isfinite(value)) else value


def _why(name: str, base: float | None, now: float | None, baseline: Mapping[str, Any], tolerance: float) -> str:
    if base is None or now is None:
        return f"{name}: baseline {base}, now {now}"
    interval = rate_interval(name, dict(baseline))
    if interval is not None:
        low, high = interval
        return f"{name} = {now:.4g}, outside the baseline's 95% interval [{low:.4g}, {high:.4g}] (baseline {base:.4g})"
    return f"{name} = {now:.4g}, more than {tolerance:.0%} from the baseline {base:.4g}"


def _no_baseline_case(suite: ET.Element, graph: str) -> None:
    """One failed test case: the graph has no baseline to compare with."""
    case = ET.SubElement(suite, "testcase", classname=f"dialectica.{graph}", name="baseline")
    ET.SubElement(case, "failure", message=f"no baseline for {graph}; run dialectica compare --update")
    suite.set("tests", "1")
    suite.set("failures", "1")


def _json_rows(
    rows: Sequence[Row], baseline: Mapping[str, Any], tolerances: Mapping[str, float], default: float
) -> list[dict[str, Any]]:
    """Each metric's row for ``comparison.json``, with the baseline's interval and the tolerance it was held to."""
    return [
        {
            "metric": name,
            "baseline": _number(base),
            "now": _number(now),
            "verdict": verdict,
            "ci95_low": baseline.get(f"{name}_ci95_low"),
            "ci95_high": baseline.get(f"{name}_ci95_high"),
            "tolerance": tolerances.get(name, default),
        }
        for name, base, now, verdict in rows
    ]


def _cases(
    suite: ET.Element,
    graph: str,
    rows: Sequence[Row],
    baseline: Mapping[str, Any],
    tolerances: Mapping[str, float],
    default: float,
) -> None:
    """A test case per metric: failed where it regressed, skipped where it is new; the suite's test count."""
    for name, base, now, verdict in rows:
        case = ET.SubElement(suite, "testcase", classname=f"dialectica.{graph}", name=name)
        if verdict == "REGRESSION":
            ET.SubElement(case, "failure", message=_why(name, base, now, baseline, tolerances.get(name, default)))
        elif verdict == "new":
            ET.SubElement(case, "skipped", message="a new metric: no baseline value yet")
    suite.set("tests", str(len(rows)))


def _details(
    graph: str, failed: Sequence[Row], baseline: Mapping[str, Any], tolerances: Mapping[str, float], default: float
) -> list[str]:
    """The job summary's table of a graph's regressions and why each is one (nothing where none regressed)."""
    if not failed:
        return []
    return [
        f"### {graph}",
        "",
        "| metric | baseline | now | why |",
        "|---|---|---|---|",
        *(
            f"| `{name}` | {_fmt(base)} | {_fmt(now)} | {_why(name, base, now, baseline, tolerances.get(name, default))} |"
            for name, base, now, _ in failed
        ),
        "",
    ]


def write(
    out: Path,
    results: Mapping[str, Sequence[Row] | None],
    baselines: Mapping[str, Mapping[str, Any]],
    tolerances: Mapping[str, float],
    default: float,
) -> list[Path]:
    """Writes the three reports into ``out`` (created); ``results[graph]`` is None when it has no baseline."""
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"regression": False, "graphs": {}}
    suites = ET.Element("testsuites", name="dialectica compare")
    md = ["## Dialectica regression check", ""]
    summary_lines = ["| graph | metrics | regressions |", "|---|---|---|"]
    details: list[str] = []
    for graph, rows in results.items():
        suite = ET.SubElement(suites, "testsuite", name=graph)
        if rows is None:
            report["regression"] = True
            report["graphs"][graph] = {"baseline": None, "rows": []}
            _no_baseline_case(suite, graph)
            summary_lines.append(f"| {graph} | - | no baseline |")
            continue
        failed = [r for r in rows if r[3] == "REGRESSION"]
        report["regression"] |= bool(failed)
        baseline = baselines[graph]
        report["graphs"][graph] = {"rows": _json_rows(rows, baseline, tolerances, default)}
        _cases(suite, graph, rows, baseline, tolerances, default)
        suite.set("failures", str(len(failed)))
        summary_lines.append(f"| {graph} | {len(rows)} | {len(failed)} |")
        details += _details(graph, failed, baseline, tolerances, default)
    verdict = "**Regression.**" if report["regression"] else "No regression."
    md += [verdict, "", *summary_lines, "", *details]
    paths = [out / "comparison.json", out / "comparison.md", out / "junit.xml"]
    paths[0].write_text(json.dumps(report, indent=2) + "\n")
    paths[1].write_text("\n".join(md).rstrip() + "\n")
    ET.indent(suites)
    ET.ElementTree(suites).write(paths[2], encoding="utf-8", xml_declaration=True)
    return paths


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"
