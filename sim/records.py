"""Typed episode records, streamed to ``episodes.jsonl`` one line per finished episode, and read back.

A record is validated once, when its episode ends, and written once. Readers stream the file: a
killed run's last line may be cut short, and is skipped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, cast, overload

from pydantic import BaseModel, ConfigDict, Field

from dialectica.metrics import FullRecord, Record, converged
from dialectica.sim.secrets import scrub_tree

if TYPE_CHECKING:
    import pandas as pd

SCHEMA_VERSION = 3  # 3: ``converged``
FILE = "episodes.jsonl"
# What a summary needs of a record; transcripts, artifacts and final states stay on disk.
SLIM_DROP = ("transcript", "artifacts", "final_state")
OPTIONAL = ("error", "fork", "final_state", "context")  # written only when there is one


class Turn(BaseModel):
    """One utterance: ``role`` is ``participant`` for the answers whose agreement is measured, else the
    speaker's role; graphs add their own fields (phase, move, fallback, ...)."""

    model_config = ConfigDict(extra="allow")

    round: int
    role: str
    speaker: str
    text: str


class EpisodeRecord(BaseModel):
    """One episode of one graph, as written to ``episodes.jsonl``.

    Attributes:
        schema_version: The layout of this record (``SCHEMA_VERSION``).
        graph, episode, seed, scenario, participants: What ran.
        termination_reason: A ``TerminationReason`` value or one of the graph's endings (``error`` when the
            episode raised).
        converged: Whether the episode converged (its ending is one the graph counts as convergence).
        metrics: Episode-level numbers (NaN is written as null).
        per_round: One mapping of numbers per round, in order.
        transcript: The dialogue, turn by turn.
        artifacts: Text outputs (a markdown report, an argument graph as JSON, ...).
        labels: Categories to break metrics down by.
        timings: Wall-clock figures: ``episode_seconds``, ``node_seconds`` per node, model time.
        usage: Model calls and tokens, in all and by node and role.
        error: The traceback, when the episode raised.
        fork: For a replayed episode (``dialectica replay``): the run it forks from (``run``) and the turn after
            which the replay's config took over (``turn``); the episode index and seed are the original's.
        final_state: A graph used as it is: its state when the episode ended, less ``messages`` (the transcript
            holds them), as JSON (``sim/adapter/snapshot``).
        context: A graph used as it is: the knob values and runtime context of its last turn.
    """

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    graph: str
    episode: int
    seed: int
    scenario: str
    participants: str
    termination_reason: str
    converged: bool = False
    metrics: dict[str, float | None] = Field(default_factory=dict)
    per_round: list[dict[str, Any]] = Field(default_factory=list)
    transcript: list[Turn] = Field(default_factory=list)
    artifacts: dict[str, str] = Field(default_factory=dict)
    labels: dict[str, str] = Field(default_factory=dict)
    timings: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    fork: dict[str, Any] | None = None
    final_state: dict[str, Any] | None = None
    context: dict[str, Any] | None = None


HEADER = '''"""The episode record as the pure metrics read it. GENERATED from ``dialectica.sim.records.EpisodeRecord``
(``typed_reader_source``; ``tests/unit/test_record_schema.py`` checks it): edit the model, not this file."""

from typing import Any, NotRequired, TypedDict


class Record(TypedDict):
    """An episode record as a summary reads it: ``episodes.jsonl``'s line less its transcript, artifacts and final
    state (``EpisodeRecord`` documents each field). An optional field is there only when it has a value."""

'''
FULL = '''

class FullRecord(Record):
    """The whole line: a ``Record`` plus the dialogue, text artifacts and a graph's final state."""

'''


def typed_reader_source() -> str:
    """``metrics/record.py``, generated from ``EpisodeRecord``: the ``Record`` (slim) and ``FullRecord`` TypedDicts the
    pure metrics read, so that the reader's schema is the writer's. Regenerate it with
    ``python -c "from dialectica.sim.records import typed_reader_source as t; print(t(), end='')"
    > metrics/record.py``."""

    def spelled(name: str) -> str:
        annotation = EpisodeRecord.model_fields[name].annotation
        builtin = isinstance(annotation, type) and annotation.__module__ == "builtins"
        text = annotation.__name__ if builtin else str(annotation)  # type: ignore[union-attr]
        text = text.replace("typing.", "").replace(f"{Turn.__module__}.{Turn.__qualname__}", "dict[str, Any]")
        return f"NotRequired[{text.removesuffix(' | None')}]" if name in OPTIONAL else text

    slim = [n for n in EpisodeRecord.model_fields if n not in SLIM_DROP]
    fields = lambda names: "".join(f"    {n}: {spelled(n)}\n" for n in names)  # noqa: E731
    return HEADER + fields(slim) + FULL + fields(SLIM_DROP)


class GraphRecords:
    """One graph's full records in a run's ``episodes.jsonl``, streamed anew on each iteration."""

    def __init__(self, path: Path, graph: str) -> None:
        self.path, self.graph = path, graph

    def __iter__(self) -> Iterator[FullRecord]:
        return read(self.path, self.graph)

    def pick(self, episodes: set[int]) -> dict[int, FullRecord]:
        """The full records of the given episode indices, in one pass."""
        return {r["episode"]: r for r in self if r["episode"] in episodes}


def exception_line(traceback: str) -> str:
    """The ``Type: message`` line of a formatted traceback: the first unindented line after its last frame (notes
    an exception carries, such as LangGraph's "During task with name ...", follow it)."""
    lines = traceback.strip().splitlines()
    frames = [i for i, line in enumerate(lines) if line.lstrip(" |").startswith("File ")]  # a group's frames: "  |   File"
    after = lines[frames[-1] + 1 :] if frames else lines
    return next((line for line in after if line.strip() and not line.startswith(" ")), lines[-1] if lines else "")


def json_safe(value: Any) -> Any:
    """NaN and infinities become null so that the files are strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def as_written(record: EpisodeRecord) -> FullRecord:
    """The record as its line holds it: ``error``, ``fork``, ``final_state`` and ``context`` only when there is one;
    every string scrubbed of the run's secrets (``secrets.scrub``: transcripts, artifacts and tracebacks can echo a
    key or a URL); NaN as null."""
    data = scrub_tree(record.model_dump(exclude_none=False))
    for key in OPTIONAL:
        if data.get(key) is None:
            data.pop(key, None)
    return cast("FullRecord", json_safe(data))


def to_line(record: EpisodeRecord) -> str:
    """The record as one sorted-key JSON line (``as_written``)."""
    return json.dumps(as_written(record), sort_keys=True) + "\n"


def append(sink: IO[str], record: EpisodeRecord) -> Record:
    """Writes the record's line and flushes; returns the record as written, slim (no transcript or artifacts), so
    that what a summary sees is what the file holds."""
    data = as_written(record)
    sink.write(json.dumps(data, sort_keys=True) + "\n")
    sink.flush()
    return slim(data)


def slim(record: Record) -> Record:
    """The record less its transcript, artifacts and final state."""
    return cast("Record", {k: v for k, v in record.items() if k not in SLIM_DROP})


class SlimRecords(Sequence[Record]):
    """A graph's slim records in memory as compact JSON, parsed on access: about an eighth of the size of
    the same dicts, so that a summary over many thousand episodes stays small."""

    def __init__(self) -> None:
        self._lines: list[bytes] = []

    def add(self, record: Record) -> None:
        self._lines.append(json.dumps(record, separators=(",", ":")).encode())

    def __len__(self) -> int:
        return len(self._lines)

    @overload
    def __getitem__(self, index: int) -> Record: ...
    @overload
    def __getitem__(self, index: slice) -> list[Record]: ...
    def __getitem__(self, index: int | slice) -> Record | list[Record]:
        if isinstance(index, slice):
            return [json.loads(line) for line in self._lines[index]]
        record: Record = json.loads(self._lines[index])
        return record

    def __iter__(self) -> Iterator[Record]:
        return (json.loads(line) for line in self._lines)


@overload
def read(path: Path, graph: str | None = None, keep: Literal[True] = True) -> Iterator[FullRecord]: ...
@overload
def read(path: Path, graph: str | None = None, *, keep: Literal[False]) -> Iterator[Record]: ...
def read(path: Path, graph: str | None = None, keep: bool = True) -> Iterator[FullRecord] | Iterator[Record]:
    """Streams the records of ``path`` (of one graph if given); ``keep=False`` drops transcripts and
    artifacts. A line cut short by a kill ends the stream. This is the one reader of records: summaries,
    pages, calibration, validity, replay and ``load_episodes`` all read through it."""
    return _read(path, graph, keep)


def _read(path: Path, graph: str | None, keep: bool) -> Iterator[FullRecord]:
    with path.open() as lines:
        for line in lines:
            try:
                record: FullRecord = json.loads(line)
            except json.JSONDecodeError:
                return
            if graph is None or record["graph"] == graph:
                yield record if keep else cast("FullRecord", slim(record))


def write_selected(path: Path, graph: str, out: Path) -> Path:
    """One graph's lines of a run's ``episodes.jsonl``, copied by streaming (for an MLflow artifact)."""
    with path.open() as src, out.open("w") as dst:
        for line in src:
            try:
                if json.loads(line).get("graph") == graph:
                    dst.write(line)
            except json.JSONDecodeError:
                break
    return out


def load_episodes(run_dir: str | Path, graphs: Iterable[str] | None = None) -> pd.DataFrame:
    """A run's episodes as a DataFrame: one row per episode (``graph``, ``episode``, ``seed``, ``scenario``,
    ``participants``, ``termination_reason``, ``converged``, ``rounds_played``: how many ``per_round`` entries the
    episode recorded, ``error``), ``metrics`` flattened into ``metric.<name>`` columns, ``labels`` into
    ``label.<name>``, plus ``episode_seconds``, ``llm_calls`` and ``tokens_total``.
    (``labels`` are the record's categories; people's pass/fail labels are read by ``dialectica.agreement_with_labels``.)

    Args:
        run_dir: A run directory (holding ``episodes.jsonl``), a sweep job's directory, or the file itself.
        graphs: Only these graphs (default: all); one name may be given as a string.

    Raises:
        FileNotFoundError: naming the path when there is no ``episodes.jsonl``.
        ValueError: a graph in ``graphs`` the run did not play (naming those it did).
    """
    import pandas as pd

    path = Path(run_dir)
    path = path if path.is_file() else path / FILE
    if not path.exists():
        jobs = "; it holds a sweep's jobs: read it with dialectica.load_sweep" if any(path.parent.glob(f"*/{FILE}")) else ""
        raise FileNotFoundError(f"no {FILE} at {path}{jobs}")
    wanted = None if graphs is None else {graphs} if isinstance(graphs, str) else set(graphs)
    rows, played = [], set()
    for record in read(path, keep=False):
        played.add(record["graph"])
        if wanted is not None and record["graph"] not in wanted:
            continue
        row: dict[str, Any] = {
            "graph": record["graph"],
            "episode": record["episode"],
            "seed": record["seed"],
            "scenario": record["scenario"],
            "participants": record["participants"],
            "termination_reason": record["termination_reason"],
            "converged": converged(record),
            "rounds_played": len(record["per_round"]),
        }
        row |= {f"metric.{k}": (math.nan if v is None else v) for k, v in record["metrics"].items()}
        row |= {f"label.{k}": v for k, v in record["labels"].items()}
        timings, usage = record["timings"], record["usage"]
        row |= {
            "episode_seconds": timings.get("episode_seconds"),
            "llm_calls": usage.get("llm_calls"),
            "tokens_total": usage.get("tokens_total"),
            "error": record.get("error"),
        }
        rows.append(row)
    if wanted is not None and wanted - played:
        raise ValueError(
            f"graphs={sorted(wanted - played)}: {path} holds no episode of them; "
            f"valid choices: {', '.join(sorted(played)) or 'none yet'}"
        )
    return pd.DataFrame(rows)
