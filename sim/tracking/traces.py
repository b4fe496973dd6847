"""Episodes as MLflow traces, their verdicts as MLflow assessments.

- **Which episodes** (``traces=``, ``config.shape.Traces``): every one when a real model is called, none of a
  scripted run (MLflow's export costs one a second or more, the run 15% at 2,000 episodes; ``dialectica label``
  traces the episodes it queues); or all, none, the first K, a seeded sample of K.
- **A traced episode** is one trace in the run's experiment: a root span ``episode <i>`` (inputs: scenario,
  seed; outputs: ending, convergence, error), and below it what MLflow's LangChain tracer records of the graph
  (a span per node run and model call, tokens on the model calls; a graph used as it is gets one LangGraph span
  per turn). Its metadata links it to the graph's MLflow run (``mlflow.sourceRun``) and names the episode as
  the session; its tags carry ``dialectica.graph``, ``.scenario``, ``.seed``, ``.episode``, ``.config`` (the
  config's digest) and ``.run_dir``.
- **Verdicts** are feedback on the trace (``VERDICTS``): ``dialectica/converged`` and ``dialectica/ending``
  (source: code, the graph's own detector), and ``dialectica/judge`` with the judge's reason where a graph used
  as it is has a judge (source: LLM judge, or code for a rule). They are logged when the graph's episodes are
  done, after MLflow's asynchronous trace export is flushed.
- **Evaluators' scores** are feedback too, one per score an episode got (``score/<key>`` from an openevals or
  agentevals evaluator or an MLflow scorer, ``rubric/<name>`` from a ready rubric), with the evaluator's comment as
  the rationale; an undefined score is left out. Their source is code, ``dialectica:<graph>:<key>`` (the harness
  logged them; whether the evaluator asked a model, the record does not say).
- **People's labels** are feedback named ``human/converged`` (``labels.py`` reads them).

Tracing never costs an episode: a failure to open, tag or log a trace is counted and warned about once; the
episode runs untraced. Traces are exported in the background; when more than ``BACKLOG`` wait, the next traced
episode waits for them (MLflow would drop traces past its queue's size otherwise). Every span is scrubbed of the
run's secrets before export (``secrets.scrub_tree``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from dialectica.metrics import FullRecord
from dialectica.sim.records import exception_line
from dialectica.sim.secrets import scrub_tree

CONVERGED, ENDING, JUDGE = "dialectica/converged", "dialectica/ending", "dialectica/judge"
HUMAN = "human/converged"  # a person's label: feedback of this name, source HUMAN (MLflow's UI, a file, a queue)
VERDICTS = {
    CONVERGED: "the episode converged, by the graph's own detector or the judge's verdict (source: code)",
    ENDING: "the episode's ending (termination_reason, source: code)",
    JUDGE: "the judge's verdict and reason, for a graph used as it is with a judge (source: LLM judge or code)",
}
SCORED = ("score/", "rubric/")  # the metrics of evaluators given as graph.metrics / metrics=, also feedback
TAG = "dialectica."
BACKLOG = 64  # traced episodes exported in the background before the next one waits for them
_log = logging.getLogger(__name__)
_setup = threading.Lock()
_scrubbing_on = False
_destination: tuple[str, str] | None = None


def _scrub_span(span: Any) -> None:
    """A span processor: the run's secrets out of inputs, outputs and string attributes before export."""
    if span.inputs is not None:
        span.set_inputs(scrub_tree(span.inputs))
    if span.outputs is not None:
        span.set_outputs(scrub_tree(span.outputs))
    for key, value in list((span.attributes or {}).items()):
        if isinstance(value, str | dict | list):
            span.set_attribute(key, scrub_tree(value))


def use_store(uri: str, experiment_id: str) -> None:
    """Sends this process's traces to ``experiment_id`` of the store at ``uri``, scrubbed of secrets (a new
    destination builds MLflow's exporter anew, about a second: the same one is kept)."""
    global _scrubbing_on, _destination
    import mlflow
    from mlflow.entities.trace_location import MlflowExperimentLocation

    with _setup:
        if _destination != (uri, experiment_id) or mlflow.get_tracking_uri() != uri:
            mlflow.set_tracking_uri(uri)
            mlflow.tracing.set_destination(MlflowExperimentLocation(experiment_id=experiment_id))
            _destination = (uri, experiment_id)
        # its note at exit ("Flushing the async trace logging queue...") is about a flush ``finish`` has made already
        logging.getLogger("mlflow.tracing.export.async_export_queue").setLevel(logging.WARNING)
        if not _scrubbing_on:
            mlflow.tracing.configure(span_processors=[_scrub_span])
            _scrubbing_on = True


def trace_tags(record: FullRecord, run_dir: str, digest: str) -> dict[str, str]:
    """The tags that find an episode's trace: graph, scenario, seed, episode, config digest, run directory."""
    return {
        f"{TAG}graph": record["graph"],
        f"{TAG}scenario": record["scenario"],
        f"{TAG}seed": str(record["seed"]),
        f"{TAG}episode": str(record["episode"]),
        f"{TAG}config": digest,
        f"{TAG}run_dir": run_dir,
    }


def verdicts(record: FullRecord) -> list[Any]:
    """The record's verdicts as MLflow ``Feedback`` (``VERDICTS``)."""
    from mlflow.entities import AssessmentSource, Feedback

    graph = record["graph"]
    code = AssessmentSource(source_type="CODE", source_id=f"dialectica:{graph}")
    out = [
        Feedback(name=CONVERGED, value=bool(record.get("converged")), source=code),
        Feedback(name=ENDING, value=str(record["termination_reason"]), source=code),
    ]
    passed = (record.get("metrics") or {}).get("judge_passed")
    if passed is not None:
        by_model = bool((record.get("usage") or {}).get("calls_by_role", {}).get("judge"))
        judge = AssessmentSource(source_type="LLM_JUDGE" if by_model else "CODE", source_id=f"dialectica:{graph}:judge")
        reason = (record.get("artifacts") or {}).get("judge") or None
        out.append(Feedback(name=JUDGE, value=bool(passed), source=judge, rationale=reason))
    for key, value in sorted((record.get("metrics") or {}).items()):
        if key.startswith(SCORED) and value is not None:  # an evaluator's score: undefined ones are left out
            source = AssessmentSource(source_type="CODE", source_id=f"dialectica:{graph}:{key}")
            reason = (record.get("artifacts") or {}).get(key) or None
            out.append(Feedback(name=key, value=float(value), source=source, rationale=reason))
    return out


def _describe(span: Any, record: FullRecord, run_id: str, run_dir: str, digest: str) -> None:
    """An episode's root span and trace, live or made afterwards: inputs, outputs, tags, session, MLflow run."""
    import mlflow

    span.set_inputs({"scenario": record["scenario"], "seed": record["seed"], "episode": record["episode"]})
    span.set_outputs(_outputs(record))
    if record.get("error"):  # the trace's state says the episode raised, as its ending does
        span.set_status("ERROR")
    mlflow.update_current_trace(
        tags=trace_tags(record, run_dir, digest), metadata={"mlflow.sourceRun": run_id}, session_id=session(record, run_dir)
    )


def _outputs(record: FullRecord) -> dict[str, Any]:
    out = {"termination_reason": record["termination_reason"], "converged": bool(record.get("converged"))}
    return out | ({"error": exception_line(str(record["error"]))} if record.get("error") else {})


class EpisodeTraces:
    """The traces of one graph's episodes in one MLflow run (``play`` each episode, then ``finish``)."""

    def __init__(self, uri: str, experiment_id: str, run_id: str, picks: frozenset[int], run_dir: str, digest: str):
        self.uri, self.experiment_id, self.run_id = uri, experiment_id, run_id
        self.picks, self.run_dir, self.digest = picks, run_dir, digest
        self.traced: dict[int, str] = {}  # episode -> trace id
        self._pending: list[tuple[str, FullRecord]] = []
        self.failures = 0
        self._tracer: Any = None
        if picks:
            use_store(uri, experiment_id)
            from mlflow.langchain.langchain_tracer import MlflowLangchainTracer

            self._tracer = MlflowLangchainTracer()

    def _failed(self, what: str, exc: Exception) -> None:
        if not self.failures:
            _log.warning("MLflow tracing: %s failed (%s: %s); the episodes go on untraced", what, type(exc).__name__, exc)
        self.failures += 1

    def play(self, index: int, make: Callable[[list[Any]], Any], written: Callable[[Any], FullRecord]) -> Any:
        """Runs ``make(callbacks)`` (the episode, with MLflow's tracer among its callbacks when ``index`` is traced)
        under the episode's root span; ``written`` turns its record into the record as written."""
        if index not in self.picks:
            return make([])
        import mlflow

        try:
            opened = mlflow.start_span(name=f"episode {index}", span_type="AGENT")
            span = opened.__enter__()
        except Exception as exc:  # noqa: BLE001 - tracing never costs an episode
            self._failed("opening a trace", exc)
            return make([])
        record = None
        try:
            record = make([self._tracer])
            return record
        finally:
            try:
                self._close(span, written(record) if record is not None else None)
            except Exception as exc:  # noqa: BLE001
                self._failed("tagging a trace", exc)
            opened.__exit__(None, None, None)

    def _close(self, span: Any, record: FullRecord | None) -> None:
        import mlflow

        if record is None:
            return
        _describe(span, record, self.run_id, self.run_dir, self.digest)
        self.traced[record["episode"]] = span.trace_id
        self._pending.append((span.trace_id, record))
        if len(self._pending) % BACKLOG == 0:  # the export queue drains before more traces join it
            mlflow.flush_trace_async_logging()

    def finish(self) -> dict[int, str]:
        """Waits for the traces' export, logs each one's verdicts as feedback; returns episode -> trace id."""
        if not self._pending:
            return dict(sorted(self.traced.items()))
        import mlflow
        from mlflow.tracing.client import TracingClient

        try:
            mlflow.flush_trace_async_logging()
            client = TracingClient(self.uri)
        except Exception as exc:  # noqa: BLE001 - the records are on disk already
            self._failed("logging verdicts", exc)
            self._pending.clear()
            return dict(sorted(self.traced.items()))
        for trace_id, record in self._pending:
            for feedback in verdicts(record):
                try:  # one failed write costs that feedback, not the other traces'
                    client.log_assessment(trace_id, feedback)
                except Exception as exc:  # noqa: BLE001 - the records are on disk already
                    self._failed("logging verdicts", exc)
        self._pending.clear()
        return dict(sorted(self.traced.items()))


def session(record: FullRecord, run_dir: str) -> str:
    """The episode's MLflow session id: one episode, one session (``<run folder>/<graph>/<episode>``)."""
    return f"{run_dir.rstrip('/').rsplit('/', 1)[-1]}/{record['graph']}/{record['episode']}"


def trace_record(record: FullRecord, uri: str, experiment_id: str, run_id: str, run_dir: str, digest: str) -> str:
    """A trace made afterwards from an episode's record (one ``turn <round>`` span per utterance, holding its
    speaker and text), tagged and given its verdicts like a live one; for episodes a person is asked to label
    that were not traced while they ran. Returns the trace id."""
    import mlflow
    from mlflow.tracing.client import TracingClient

    use_store(uri, experiment_id)
    with mlflow.start_span(name=f"episode {record['episode']}", span_type="AGENT") as span:
        for turn in record.get("transcript") or []:
            with mlflow.start_span(name=f"turn {turn['round']} {turn['speaker']}", span_type="CHAIN") as child:
                child.set_inputs({"role": turn["role"], "speaker": turn["speaker"]})
                child.set_outputs({"text": turn["text"]})
        _describe(span, record, run_id, run_dir, digest)
        trace_id = str(span.trace_id)
    mlflow.flush_trace_async_logging()
    client = TracingClient(uri)
    for feedback in verdicts(record):
        client.log_assessment(trace_id, feedback)
    return trace_id


def trace_url(ui: str, experiment_id: str, trace_id: str) -> str:
    """The trace's page in the MLflow UI served at ``ui`` (``http://127.0.0.1:5000``)."""
    return f"{ui.rstrip('/')}/#/experiments/{experiment_id}/traces?selectedEvaluationId={trace_id}"
