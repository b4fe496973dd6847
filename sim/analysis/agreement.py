"""``dialectica agreement RUN``: every verdict of a finished run against people's labels.

A *verdict* is a machine's pass or fail for an episode: ``converged`` (the graph's own convergence detector, or
the judge's verdict for a graph used as it is) and each episode metric ``<name>_passed`` (``judge_passed``
becomes the verdict ``judge``). Labels are read from the run's MLflow traces and from files
(``tracking.labels``); an episode with several labelers counts once, by their majority.

Per verdict: the confusion matrix, accuracy, sensitivity, specificity and Cohen's kappa with its 95% interval,
per scenario and per ending too; the episodes where verdict and person disagree, with their pages and traces;
the verdict's raw rate and the rate corrected for its measured error, with a 95% interval over both the
episodes' and the labels' sampling (``metrics.verdicts``), and how many more labels would halve it. Episodes
``dialectica label`` queued as *targeted* (picked because a second verdict disagreed) are listed, not counted
in the estimates, which need labels drawn at random.

Writes ``<run>/<graph>/agreement.json`` (top-level keys are the ``converged`` verdict's: ``labels``, ``kappa``,
``kappa_ci95``, ``confusion``, ``corrected_convergence_rate``, ...; ``verdicts`` holds every verdict) and
``agreement.md``, and logs both and the headline figures to the graph's MLflow run.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialectica.metrics import Record
from dialectica.metrics.stats import wilson_interval
from dialectica.metrics.verdicts import Confusion, confusion, corrected_rate, kappa, labels_to_halve
from dialectica.sim import records as rec
from dialectica.sim.adapter.judges import Example
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.tracking.labels import Label, consensus, dated, from_mlflow, merged, post, read_file
from dialectica.sim.tracking.store import RetryingClient, mlflow_ui_url
from dialectica.sim.tracking.traces import HUMAN, trace_url

QUEUE = "label_queue.json"  # <graph>/label_queue.json: what `dialectica label` asked people to look at, and why
TRACES = "traces.json"


@dataclass(frozen=True)
class GraphRun:
    """One graph of a finished run directory: where its records, MLflow run and traces are."""

    run_dir: Path
    graph: str
    mlflow_run_id: str | None = None
    tracking_uri: str | None = None
    experiment_id: str | None = None
    traces: dict[int, str] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return self.run_dir / self.graph

    def records(self) -> list[Record]:
        return list(rec.read(self.run_dir / rec.FILE, self.graph, keep=False))

    def queued(self) -> dict[int, str]:
        """The episodes ``dialectica label`` queued, and why (``random`` or ``targeted``)."""
        return {int(i): why for i, why in _json(self.folder / QUEUE).get("episodes", {}).items()}

    def trace_links(self) -> dict[int, str]:
        if not self.traces or self.experiment_id is None or self.tracking_uri is None:
            return {}
        ui = mlflow_ui_url(self.tracking_uri)
        return {i: trace_url(ui, self.experiment_id, t) for i, t in self.traces.items()}


def graph_runs(run_dir: Path, graph: str | None = None) -> list[GraphRun]:
    """The graphs of a finished run directory (or only ``graph``).

    Raises:
        ConfigError: no finished run there, or no such graph in it.
    """
    summary = run_dir / "summary.json"
    if not (run_dir / rec.FILE).is_file() or not summary.is_file():
        jobs = sorted(str(job) for found in sweep_jobs(run_dir).values() for job in found) if run_dir.is_dir() else []
        if jobs:
            raise ConfigError(f"{run_dir} is a sweep; give one of its jobs' folders: {', '.join(jobs)}")
        raise ConfigError(f"{run_dir}: not a finished run directory (no {rec.FILE} and summary.json); give a run's folder")
    entries = json.loads(summary.read_text())["graphs"]
    if graph is not None and graph not in entries:
        raise ConfigError(f"--graph {graph}: not in {run_dir}; valid choices: {', '.join(entries)}")
    runs = []
    for name, entry in entries.items():
        if graph is not None and name != graph:
            continue
        config = _json(run_dir / name / "config.json")
        tracking = config.get("tracking") or {}
        traced = _json(run_dir / name / TRACES)
        runs.append(
            GraphRun(
                run_dir,
                name,
                entry.get("mlflow_run_id"),
                str(tracking["uri"]) if tracking.get("enabled") else None,
                traced.get("experiment_id"),
                {int(k): v for k, v in (traced.get("traces") or {}).items()},
            )
        )
    return runs


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.is_file() else {}


# Episode metrics that are a pass/fail verdict, by the verdict's name (1 passed, 0 failed). Not every metric named
# ``*_passed`` is one: the tribunal's ``criteria_passed`` counts criteria.
VERDICT_METRICS = {"judge_passed": "judge"}


def verdict_values(record: Record) -> dict[str, bool]:
    """The record's verdicts: ``converged``, and ``judge`` where a judge gave one (``judge_passed``)."""
    out = {"converged": bool(record.get("converged"))}
    metrics = record.get("metrics") or {}
    for metric, name in VERDICT_METRICS.items():
        if metrics.get(metric) is not None:
            out[name] = bool(metrics[metric])
    return out


def _stats(c: Confusion) -> dict[str, Any]:
    k = kappa(c)
    stats = {
        "n": c.n,
        "confusion": c.counts(),
        "accuracy": _num(c.accuracy),
        "sensitivity": _num(c.sensitivity),
        "specificity": _num(c.specificity),
        "kappa": _num(k.estimate),
        "kappa_ci95": [_num(k.low), _num(k.high)],
    }
    if _constant(stats):  # 0 by construction: an interval around it would say nothing of the verdict
        stats["kappa_ci95"] = [None, None]
    return stats


def _num(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)


def _grouped(rows: Iterable[tuple[str, bool, bool]]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for key, verdict, label in rows:
        groups[key].append((verdict, label))
    return {key: _stats(confusion(pairs)) for key, pairs in sorted(groups.items())}


def _notes(labels: Sequence[Label]) -> dict[int, list[str]]:
    """Each episode's labelers' notes, ``labeler: note``."""
    notes: dict[int, list[str]] = defaultdict(list)
    for lab in labels:
        if lab.note:
            notes[lab.episode].append(f"{lab.labeler}: {lab.note}")
    return notes


@dataclass(frozen=True)
class _Labeled:
    """One graph's records with the people's labels: what each verdict is measured against."""

    by_episode: dict[int, Record]
    people: dict[tuple[str, int], bool]  # (graph, episode) -> the labelers' consensus
    skip: set[int]  # episodes picked for labeling because of their verdicts: kept out of the agreement
    notes: dict[int, list[str]]
    pages: Mapping[int, str]
    traces: Mapping[int, str]

    def verdict(self, name: str) -> dict[str, Any]:
        """One verdict's agreement with the people, its rate corrected by it, and the disagreements."""
        judged = {i: verdict_values(r).get(name) for i, r in self.by_episode.items()}
        judged_eps = {i: v for i, v in judged.items() if v is not None}
        people, by_episode = self.people, self.by_episode
        labeled = [(i, judged_eps[i], people[(g, i)]) for (g, i) in sorted(people) if i in judged_eps and i not in self.skip]
        c = confusion((v, h) for _, v, h in labeled)
        passed, total = sum(judged_eps.values()), len(judged_eps)
        low, high = wilson_interval(passed, total)
        corrected = corrected_rate(passed, total, c)
        return _stats(c) | {
            "passed": passed,
            "judged": total,
            "rate": {"estimate": passed / total if total else None, "ci95_low": low, "ci95_high": high},
            "corrected_rate": corrected.as_dict()
            | {"method": "double sampling, Jeffreys posterior: median, 95% interval (metrics/verdicts.py)"},
            "labels_to_halve": labels_to_halve(passed, total, c, max(0, total - len(labeled) - len(self.skip)))
            if c.n
            else None,
            "by_scenario": _grouped((by_episode[i]["scenario"], v, h) for i, v, h in labeled),
            "by_ending": _grouped((by_episode[i]["termination_reason"], v, h) for i, v, h in labeled),
            "disagreements": self.disagreements(judged_eps),
        }

    def disagreements(self, judged: Mapping[int, bool]) -> list[dict[str, Any]]:
        """Every labeled episode whose verdict the people's label contradicts, with where to look."""
        return [
            {
                "episode": i,
                "scenario": self.by_episode[i]["scenario"],
                "ending": self.by_episode[i]["termination_reason"],
                "verdict": judged[i],
                "label": self.people[(g, i)],
                "targeted": i in self.skip,
                "notes": self.notes.get(i, []),
                "page": self.pages.get(i),
                "trace": self.traces.get(i),
            }
            for (g, i) in sorted(self.people)
            if i in judged and judged[i] != self.people[(g, i)]
        ]


def agreement(
    records: Sequence[Record],
    labels: Sequence[Label],
    targeted: Iterable[int] = (),
    pages: Mapping[int, str] | None = None,
    traces: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """Every verdict of one graph's ``records`` against ``labels`` (module docstring). Pure: records and labels in,
    the ``agreement.json`` mapping out."""
    by_episode = {int(r["episode"]): r for r in records}
    unknown = sorted({lab.episode for lab in labels} - set(by_episode))
    if unknown:
        sources = sorted({lab.source for lab in labels if lab.episode == unknown[0]})
        raise ConfigError(
            f"labels ({', '.join(sources)}) name episode {unknown[0]}, which the run does not hold "
            f"(episodes 0-{max(by_episode, default=0)})"
        )
    people = consensus(labels)
    skip = set(targeted)
    run = _Labeled(by_episode, people, skip, _notes(labels), pages or {}, traces or {})
    names = sorted({n for r in records for n in verdict_values(r)}, key=lambda n: (n != "converged", n))
    verdicts: dict[str, Any] = {name: run.verdict(name) for name in names}
    head = verdicts.get("converged", {})
    return {
        "episodes": len(by_episode),
        "labels": head.get("n", 0),
        "labelers": sorted({lab.labeler for lab in labels}),
        "label_count": len(labels),
        "sources": sorted({lab.source for lab in labels}),
        "split": sum(1 for key in {(lab.graph, lab.episode) for lab in labels} if key not in people),
        "targeted": sorted(skip & {i for (_, i) in people}),
        "between_labelers": between_labelers(labels),
        "kappa": head.get("kappa"),
        "kappa_ci95": head.get("kappa_ci95"),
        "confusion": head.get("confusion"),
        "accuracy": head.get("accuracy"),
        "sensitivity": head.get("sensitivity"),
        "specificity": head.get("specificity"),
        "convergence_rate": head.get("rate"),
        "corrected_convergence_rate": head.get("corrected_rate"),
        "labels_to_halve": head.get("labels_to_halve"),
        "verdicts": verdicts,
    }


def between_labelers(labels: Sequence[Label]) -> dict[str, Any] | None:
    """Cohen's kappa between the two labelers who share the most episodes, or None without such a pair."""
    by_labeler: dict[str, dict[int, bool]] = defaultdict(dict)
    for lab in labels:
        by_labeler[lab.labeler][lab.episode] = lab.value
    pairs = [
        (len(by_labeler[a].keys() & by_labeler[b].keys()), a, b)
        for a in sorted(by_labeler)
        for b in sorted(by_labeler)
        if a < b
    ]
    shared, a, b = max(pairs, default=(0, "", ""))
    if shared < 2:
        return None
    episodes = sorted(by_labeler[a].keys() & by_labeler[b].keys())
    stats = _stats(confusion((by_labeler[a][e], by_labeler[b][e]) for e in episodes))
    return {"labelers": [a, b], "episodes": shared, "accuracy": stats["accuracy"], "kappa": stats["kappa"]}


def _rate(entry: Mapping[str, Any] | None) -> str:
    if not entry or entry.get("estimate") is None:
        return "-"
    return f"{entry['estimate']:.2f} ({entry['ci95_low']:.2f}-{entry['ci95_high']:.2f})"


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}"


def _constant(stats: Mapping[str, Any]) -> bool:
    """Whether the verdict passed, or failed, every labeled episode: kappa is then 0 by construction."""
    c = stats["confusion"]
    return stats["n"] > 0 and c["tp"] + c["fp"] in (0, stats["n"])


def _kappa(stats: Mapping[str, Any]) -> str:
    if _constant(stats):
        return "-"
    low, high = stats.get("kappa_ci95") or (None, None)
    return _fmt(stats["kappa"]) + (f" ({_fmt(low)}-{_fmt(high)})" if low is not None and high is not None else "")


def _verdicts_table(verdicts: Mapping[str, Any]) -> list[str]:
    """One row per verdict: its rates, confusion matrix, kappa and the labels that would halve its interval."""
    lines = [
        "",
        "| verdict | rate (95% CI) | corrected (95% CI) | labels | tp | fp | fn | tn | accuracy | sensitivity | "
        "specificity | kappa (95% CI) | labels to halve |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, v in verdicts.items():
        c = v["confusion"]
        lines.append(
            f"| {name} | {_rate(v['rate'])} | {_rate(v['corrected_rate'])} | {v['n']} | {c['tp']} | {c['fp']} | "
            f"{c['fn']} | {c['tn']} | {_fmt(v['accuracy'])} | {_fmt(v['sensitivity'])} | {_fmt(v['specificity'])} | "
            f"{_kappa(v)} | {v['labels_to_halve'] if v['labels_to_halve'] is not None else '-'} |"
        )
    constant = [name for name, v in verdicts.items() if _constant(v)]
    if constant:
        lines += [
            "",
            f"No kappa for {', '.join(constant)}: the verdict was the same on every labeled episode, so kappa is 0 "
            "whatever people said; the confusion matrix says how often they agreed with it.",
        ]
    return lines


def markdown(graph: str, result: Mapping[str, Any]) -> str:
    """``agreement.md``: the headline, a table per verdict, and the disagreements with their links."""
    lines = [f"# Agreement with people: {graph}", ""]
    lines.append(
        f"{result['episodes']} episodes, {result['labels']} labeled by consensus "
        f"({result['label_count']} labels from {len(result['labelers'])} labeler(s): {', '.join(result['labelers']) or '-'}"
        f"{'; ' + str(result['split']) + ' split evenly, left out' if result['split'] else ''})"
        + (f", read from {', '.join(result['sources'])}." if result.get("sources") else ".")
    )
    if result["targeted"]:
        lines.append(f"Targeted episodes, listed but not counted: {', '.join(map(str, result['targeted']))}.")
    between = result.get("between_labelers")
    if between:
        lines.append(
            f"Between labelers {between['labelers'][0]} and {between['labelers'][1]} ({between['episodes']} shared "
            f"episodes): accuracy {_fmt(between['accuracy'])}, kappa {_fmt(between['kappa'])}."
        )
    lines += _verdicts_table(result["verdicts"])
    for name, v in result["verdicts"].items():
        for by in ("by_scenario", "by_ending"):
            if len(v[by]) > 1:
                lines += [
                    "",
                    f"**{name}, {by.replace('_', ' ')}**",
                    "",
                    "| | labels | accuracy | kappa |",
                    "|---|---|---|---|",
                ]
                lines += [f"| {k} | {s['n']} | {_fmt(s['accuracy'])} | {_kappa(s)} |" for k, s in v[by].items()]
        if v["disagreements"]:
            lines += ["", f"**{name}: where the verdict and people disagree**", ""]
            for d in v["disagreements"]:
                links = [f"[page](view/{Path(d['page']).name})"] if d["page"] else []  # beside agreement.md
                links += [f"[trace]({d['trace']})"] if d["trace"] else []
                said = f"verdict {'pass' if d['verdict'] else 'fail'}, people {'pass' if d['label'] else 'fail'}"
                why = f": {'; '.join(d['notes'])}" if d["notes"] else ""
                lines.append(
                    f"- episode {d['episode']} ({d['scenario']}, {d['ending']}{', targeted' if d['targeted'] else ''}): "
                    f"{said}{why} {' '.join(links)}".rstrip()
                )
    lines += [
        "",
        "The corrected rate is the share a person would pass: the verdict's pass rate over every episode, each class "
        "re-weighted by how often people agreed with it in that class; its interval carries both the episodes' and "
        "the labels' sampling (metrics/verdicts.py). It assumes the labeled episodes of each class were picked at "
        "random, as `dialectica label` picks them. Labels to halve: how many more random labels would halve the "
        "corrected interval; `-` where labeling every episode left would not, because the episodes' own sampling "
        "holds too much of it: run more episodes.",
    ]
    return "\n".join(lines) + "\n"


def collect(run: GraphRun, files: Sequence[Path], graphs: Sequence[str]) -> list[Label]:
    """The graph's labels from its MLflow traces, the ``labels_<name>.csv`` files ``dialectica label`` left in its
    folder (filled in by people), and ``files``."""
    found = from_mlflow(run.tracking_uri, run.mlflow_run_id, run.graph) if run.tracking_uri and run.mlflow_run_id else []
    own = sorted(run.folder.glob("labels_*.csv"))
    given = [p for p in files if p.resolve() not in {o.resolve() for o in own}]
    in_files = [lab for path in [*own, *given] for lab in read_file(path, graphs, given=path in given)]
    return merged([*found, *dated([lab for lab in in_files if lab.graph == run.graph], found)])


def measured(
    run_dir: Path, files: Sequence[Path] = (), graph: str | None = None, skip: Iterable[int] = ()
) -> list[tuple[GraphRun, list[Label], dict[str, Any]]]:
    """Each graph of a finished run with the labels ``collect`` finds (less the ``skip`` episodes) and its
    ``agreement`` against them; graphs without labels are left out."""
    names = [run.graph for run in graph_runs(run_dir)]
    left_out, done = set(skip), []
    for run in graph_runs(run_dir, graph):
        labels = [lab for lab in collect(run, files, names) if lab.episode not in left_out]
        if labels:
            targeted = [i for i, why in run.queued().items() if why == "targeted"]
            done.append((run, labels, agreement(run.records(), labels, targeted, pages(run), run.trace_links())))
    return done


def agreement_with_labels(
    run_dir: str | Path, labels: Sequence[str | Path] = (), graph: str | None = None, skip: Iterable[int] = ()
) -> dict[str, dict[str, Any]]:
    """``dialectica agreement`` from Python, writing and logging nothing: each graph of a finished run -> every
    verdict against people's labels (what ``agreement.json`` holds: confusion, kappa, the raw and corrected
    rates, the disagreements). Labels come from the run's MLflow traces, the ``labels_*.csv`` files in its
    folders and ``labels`` (CSV or JSONL files); ``skip`` leaves episodes out (those an LLM judge saw as examples).

    Raises:
        ConfigError: no finished run there, no such graph, or no labels for any graph.
    """
    found = {run.graph: result for run, _, result in measured(Path(run_dir), [Path(p) for p in labels], graph, skip)}
    if not found:
        raise ConfigError(
            f"no labels for {run_dir}: add feedback named human/converged on its traces in MLflow's UI, "
            f"run `dialectica label {run_dir}`, or give labels=[FILE] (columns episode,label)"
        )
    return found


def pages(run: GraphRun) -> dict[int, str]:
    """Episode -> its page, an absolute path (a labels file or a report opened from anywhere finds it)."""
    view = run.folder.resolve() / "view"
    return {int(p.stem.split("_")[1]): str(p) for p in view.glob("episode_*.html")} if view.is_dir() else {}


def write(run: GraphRun, result: Mapping[str, Any]) -> list[Path]:
    """``agreement.json`` and ``agreement.md`` in the graph's folder, logged to its MLflow run when it has one."""
    run.folder.mkdir(parents=True, exist_ok=True)
    out_json, out_md = run.folder / "agreement.json", run.folder / "agreement.md"
    out_json.write_text(json.dumps({"graph": run.graph, **result}, indent=2) + "\n")
    out_md.write_text(markdown(run.graph, result))
    if run.tracking_uri and run.mlflow_run_id:
        from mlflow.tracking import MlflowClient

        from dialectica.sim.tracking.runs import MlflowRun  # lazy: start-up (omegaconf, yaml)

        client = RetryingClient(MlflowClient(run.tracking_uri))
        log = MlflowRun(client, run.mlflow_run_id)
        corrected = result["corrected_convergence_rate"] or {}
        figures = {
            "agreement/labels": float(result["labels"]),
            "agreement/kappa": _nan(result["kappa"]),
            "agreement/corrected_convergence_rate": _nan(corrected.get("estimate")),
            "agreement/corrected_convergence_rate_ci95_low": _nan(corrected.get("ci95_low")),
            "agreement/corrected_convergence_rate_ci95_high": _nan(corrected.get("ci95_high")),
        }
        step = int(result["label_count"])  # a later check with more labels adds a point rather than hiding this one
        last = {k: [m for m in client.get_metric_history(run.mlflow_run_id, k) if m.step == step] for k in figures}
        if any(not _same(last[k], v) for k, v in figures.items()):  # the same labels again add no point
            log.metrics(figures, step=step)
        log.artifact(out_json, "agreement")
        log.artifact(out_md, "agreement")
    return [out_json, out_md]


def post_labels(run: GraphRun, labels: Sequence[Label]) -> str | None:
    """The labels read from files posted to the graph's traces (``labels.post``); what was done, in a line, or
    None when the run has no MLflow store or no label came from a file."""
    from_files = [lab for lab in labels if lab.source != "mlflow"]
    if not run.tracking_uri or not from_files:
        return None
    try:
        posted, untraced = post(run.tracking_uri, run.traces, from_files)
    except Exception as exc:  # noqa: BLE001 - the report is written; MLflow's copy of the labels is a convenience
        return f"could not post the file's labels to the traces ({type(exc).__name__}: {exc})"
    plural = "" if posted == 1 else "s"
    line = f"{run.graph}: {posted} label{plural} from files posted to the traces as {HUMAN} (MLflow's UI shows them)"
    if untraced:
        shown = ", ".join(map(str, untraced[:10])) + (", ..." if len(untraced) > 10 else "")
        line += f"; episodes {shown} have no trace (`dialectica label` traces the episodes it queues)"
    return line


def _same(points: Sequence[Any], value: float) -> bool:
    """Whether the last point logged at a step holds ``value`` (nan equal to nan)."""
    return bool(points) and (points[-1].value == value or (math.isnan(points[-1].value) and math.isnan(value)))


def _nan(value: Any) -> float:
    return math.nan if value is None else float(value)


def judge_examples(
    run_dir: str | Path, labels: Sequence[str | Path] = (), graph: str | None = None, k: int = 4
) -> tuple[Example, ...]:
    """Up to ``k`` labeled episodes of a finished run as worked examples for ``LLMJudge(examples=...)``: those where
    the run's judge (else its convergence) and people disagreed, with at least one of each label people gave.
    Labels are read from the run's MLflow traces and from ``labels`` files; the note is the example's reason.

    Raises:
        ConfigError: no finished run there, or no labels for it.
    """
    runs = graph_runs(Path(run_dir), graph)
    if len(runs) > 1:
        raise ConfigError(f"{run_dir} holds several graphs; give graph=, one of: {', '.join(r.graph for r in runs)}")
    run = runs[0]
    found = collect(run, [Path(p) for p in labels], [run.graph])
    people = {i: v for (_, i), v in consensus(found).items()}
    if not people:
        raise ConfigError(f"no labels for {run_dir}: label some episodes first (dialectica label {run_dir})")
    notes = {lab.episode: lab.note for lab in found if lab.note}
    records = rec.GraphRecords(run.run_dir / rec.FILE, run.graph).pick(set(people))
    machine = {i: verdict_values(r) for i, r in records.items()}
    said = {i: v.get("judge", v["converged"]) for i, v in machine.items()}
    wrong = [i for i in sorted(people) if said[i] != people[i]]
    right = [i for i in sorted(people) if said[i] == people[i]]
    chosen = wrong[: max(1, k - 1)]
    for pool in (wrong, right):  # at least one example of each label, where people gave both
        missing = [i for i in pool if people[i] not in {people[c] for c in chosen}]
        if missing and len(chosen) < k:
            chosen.append(missing[0])
    chosen += [i for i in wrong + right if i not in chosen][: k - len(chosen)]
    return tuple(Example(_text(records[i]), people[i], notes.get(i, ""), i) for i in chosen)


def _text(record: Any) -> str:
    """A record's dialogue as the judge reads one: ``USER:`` and ``ASSISTANT:`` lines, tool turns left out."""
    speakers = {"user": "USER", "assistant": "ASSISTANT"}
    return "\n".join(f"{speakers[t['role']]}: {t['text']}" for t in record.get("transcript") or [] if t["role"] in speakers)


def sweep_jobs(directory: Path) -> dict[str, list[Path]]:
    """A sweep directory's finished jobs grouped by configuration, named by the overrides that tell it from the
    others (less ``seed``: jobs that differ only in their seed pool); empty when ``directory`` is not a sweep."""
    groups: dict[str, list[Path]] = defaultdict(list)
    from dialectica.sim.tracking.sweep import job_files  # lazy: start-up (hydra, omegaconf)

    jobs = [(s.parent, json.loads(s.read_text()).get("overrides", [])) for s in job_files(directory, "summary.json")]
    unseeded = [{o for o in overrides if not o.lstrip("+~").startswith("seed=")} for _, overrides in jobs]
    shared = set.intersection(*unseeded) if len(jobs) > 1 else set()
    if all(kept == shared for kept in unseeded):  # one configuration (over seeds): named by all it set
        shared = set()
    for job, overrides in jobs:
        kept = [o for o in overrides if o not in shared and not o.lstrip("+~").startswith("seed=")]
        groups[" ".join(kept) or "(defaults)"].append(job)
    return dict(groups)


def pooled(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One configuration's jobs (their ``agreement`` results for one graph) pooled: episodes, labels, confusion,
    raw and corrected convergence rate, kappa."""
    head = [r["verdicts"]["converged"] for r in results]
    c = Confusion(*(sum(v["confusion"][k] for v in head) for k in ("tp", "fp", "fn", "tn")))
    passed, total = sum(v["passed"] for v in head), sum(v["judged"] for v in head)
    low, high = wilson_interval(passed, total)
    k = kappa(c)
    return {
        "jobs": len(results),
        "episodes": total,
        "labels": c.n,
        "confusion": c.counts(),
        "kappa": _num(k.estimate),
        "convergence_rate": {"estimate": passed / total if total else None, "ci95_low": low, "ci95_high": high},
        "corrected_convergence_rate": corrected_rate(passed, total, c).as_dict(),
    }


def sweep_markdown(graph: str, rows: Mapping[str, Mapping[str, Any]], unlabeled: Sequence[str] = ()) -> str:
    """The sweep's configurations with their raw and corrected convergence rates side by side (and those that no
    one labeled, named below the table)."""
    lines = [
        f"# Agreement with people across a sweep: {graph}",
        "",
        "| configuration | jobs | episodes | labels | convergence rate (95% CI) | corrected (95% CI) | kappa |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        lines.append(
            f"| {name} | {row['jobs']} | {row['episodes']} | {row['labels']} | {_rate(row['convergence_rate'])} | "
            f"{_rate(row['corrected_convergence_rate'])} | "
            f"{'-' if _constant({'n': row['labels'], 'confusion': row['confusion']}) else _fmt(row['kappa'])} |"
        )
    if unlabeled:
        lines += ["", f"Not labeled, so not shown: {'; '.join(unlabeled)} (`dialectica label JOB` queues a job's episodes)."]
    return "\n".join(lines) + "\n"
