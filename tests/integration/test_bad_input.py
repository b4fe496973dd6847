"""Every mistake is one line (issue 19): bad input, faults and interrupts, each through the console script's
``main()`` in a process of its own (forked from one that imported the CLI once, ``tests.forked``; interrupts and
injected faults in a fresh subprocess, ``tests.inject``).

Each case asserts the exit code (2: bad input; 1: a fault during the run; 130/143: SIGINT/SIGTERM), exactly
one non-empty line on stderr naming the key, file or address and the valid choices or what to do, no
traceback (unless HYDRA_FULL_ERROR=1), and, for a run that never started, nothing left behind: no run
directory and no MLflow database.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.forked import dialectica
from tests.inject import At, run_at

DATASETS = Path(__file__).resolve().parents[2] / "datasets"
GRAPHS = "committee, interview, maieutic, socratic_panel, tribunal"


def _run(tmp: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return dialectica(
        [f"hydra.run.dir={tmp / 'run'}", f"tracking.uri=sqlite:///{tmp / 'ml.db'}", "progress=false", *args], tmp, env
    )


def _one_line(proc: subprocess.CompletedProcess, code: int, fragments: tuple[str, ...]) -> str:
    """The one stderr line; asserts the exit code, the fragments and that no traceback was printed."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == code, proc.stderr[-3000:]
    assert len(lines) == 1, proc.stderr[-3000:]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert "Traceback" not in proc.stderr + proc.stdout
    return lines[0]


def _materials(tmp: Path) -> None:
    """Files the cases point at: a regular file where a folder should be, model files that are not models."""
    (tmp / "afile").write_text("not a folder\n")
    (tmp / "empty.gguf").write_bytes(b"")
    (tmp / "notes.gguf").write_text("hello, I am a text file\n")
    (tmp / "trunc.gguf").write_bytes(b"GGUF\x03\x00\x00\x00")  # the magic, then the header cut short
    (tmp / "models").mkdir()


def case(id: str, args: str, *fragments: str) -> object:
    return pytest.param(args.split(), fragments, id=id)


PANEL = "graph=socratic_panel"
INTERVIEW = "graph=interview"
LLAMA = "graph=interview llm=llamacpp"
OPENAI = "graph=interview llm=openai"

INPUT_CASES = [
    # unknown keys, at every level
    case("top-key", "+foo=1", "unknown key foo; valid keys: budget, checkpoints, datasets_dir,", "episodes"),
    *(
        case(f"graph-key-{g}", f"graph={g} +graph.bogus=1", "unknown key graph.bogus; valid keys:")
        for g in ("socratic_panel", "maieutic", "committee", "tribunal", "interview")
    ),
    case(
        "graph-key-no-plus",
        f"{INTERVIEW} graph.max_rounds=3",
        "unknown key graph.max_rounds; valid keys: budget, question_cost",
    ),
    case(
        "nested-key",
        f"{PANEL} graph.strength_weights.hgh=1",
        "unknown key graph.strength_weights.hgh (did you mean graph.strength_weights.high?); valid keys: high, low, medium",
    ),
    # a near miss of a key or an option says which was meant
    case("typo-top-key", "episods=3", "unknown key episods (did you mean episodes?); valid keys:"),
    case("typo-graph-key", f"{INTERVIEW} graph.budgett=3", "unknown key graph.budgett (did you mean graph.budget?);"),
    case("typo-llm-key", "llm=llamacpp llm.temprature=0.2", "unknown key llm.temprature (did you mean llm.temperature?)"),
    case("typo-view-key", "view.frist=2", "unknown key view.frist (did you mean view.first?); valid keys:"),
    case("typo-graph", "graph=intervew", "unknown graph='intervew' (did you mean graph=interview?); valid choices:"),
    case("graph-list", "graph=[socratic_panel,interview]", "a run plays one graph, or every one (graph=all); valid:"),
    case("typo-llm", "llm=llamcpp", "unknown llm='llamcpp' (did you mean llm=llamacpp?); valid choices:"),
    case("cast-key", f"{PANEL} +graph.cast.bogus=1", "unknown key graph.cast.bogus; valid keys:"),
    case("cast-not-mapping", "graph=maieutic graph.cast=5", "graph.cast=5 is invalid; valid values: the cast's options"),
    case(
        "graph-key-for-all",
        "graph=all +graph.max_rounds=3",
        "graph.max_rounds needs one graph: add graph=<name>",
        "per_graph.<name>.max_rounds",
    ),
    case(
        "graph-key-for-all-no-plus",
        "graph.budget=8",
        "graph.budget needs one graph: add graph=<name>",
        "per_graph.<name>.budget",
    ),
    case("llm-key", "+llm.bogus=1", "unknown key llm.bogus; valid keys:"),
    case(
        "llm-key-scripted",
        f"{INTERVIEW} llm.temperature=0.5",
        "llm.temperature is a setting of a model: add llm=llamacpp or llm=openai",
    ),
    case("tracking-key", "+tracking.bogus=1", "unknown key tracking.bogus; valid keys: enabled, experiment, uri"),
    case(
        "tracking-secret-key",
        "+tracking.api_key=sk-live-123456",
        "unknown key tracking.api_key; valid keys: enabled,",
        "credentials come from the environment: MLFLOW_TRACKING_TOKEN",
    ),
    case("participants-key", "+participants.bogus=1", "unknown key participants.bogus; valid keys:", "failure_rate"),
    case("view-key", "+view.bogus=1", "view.bogus is not a view option; valid keys: enabled, pages, first, metric, errors"),
    case("per-graph-unknown", "per_graph.nope.x=1", f"unknown graph per_graph.nope; valid choices: {GRAPHS}"),
    case("per-graph-unknown-plus", "+per_graph.nope.x=1", f"unknown graph per_graph.nope; valid choices: {GRAPHS}"),
    case("per-graph-no-plus", "per_graph.socratic_panel.max_rounds=3", "write +per_graph.socratic_panel.max_rounds=<value>"),
    case("hydra-key", "hydra.bogus=1", "unknown key hydra.bogus; valid keys:", "run"),
    case("plus-on-existing", "+episodes=3", "An item is already at 'episodes'", "remove + prefix"),
    # unknown group options
    case("graph-option", "graph=nope", f"graph='nope'; valid choices: all, {GRAPHS}", "graph=package.module:attr"),
    case(
        "participants-option", "participants=robots", "participants='robots'; valid choices: calibrated, scripted, surrogate"
    ),
    case("llm-option", "llm=gpt", "unknown llm='gpt'; valid choices: llamacpp, openai, scripted"),
    case("tracking-option", "tracking=mongo", "unknown tracking='mongo'; valid choices: none, sqlite"),
    case("hparams-option", "hparams_search=nope", "unknown hparams_search='nope'; valid choices: committee_optuna,"),
    case("experiment-option", "+experiment=nope", "unknown experiment='nope'; valid choices: ci_suite,"),
    case(
        "study-trials-str",
        "-m hparams_search=interview_optuna hydra.sweeper.n_trials=abc",
        "hydra.sweeper.n_trials cannot take the value given: Value 'abc' of type 'str' could not be converted to Integer",
    ),
    case(
        "study-bound-out-of-range",
        "-m hparams_search=socratic_panel_optuna graph.convergence_threshold=interval(0.5,1.5)",
        "sweep job 1 (",
        "graph.convergence_threshold=1.5 is out of range",
    ),
    case("study-without-m", "hparams_search=interview_optuna", "is a study over many runs: add -m (dialectica -m"),
    # the command line itself
    case(
        "no-equals",
        f"{INTERVIEW} episodes",
        "cannot read the command line: Error parsing override 'episodes'",
        "settings are key=value",
    ),
    case("unclosed-list", f"{INTERVIEW} scenario=[a", "cannot read the command line", "settings are key=value"),
    case("dash-option", "--episodes=5", "unknown option --episodes=5", "settings are key=value, e.g. episodes=..."),
    case("sweep-without-m", "graph=socratic_panel,maieutic", "'graph=socratic_panel,maieutic'", "add --multirun"),
    case(
        "interpolation", "seed=${nope}", "seed=${nope} does not resolve (Interpolation key 'nope' not found); give a value"
    ),
    # wrong types
    case("episodes-str", "episodes=abc", "episodes='abc' is invalid; valid values: integers 1..1,000,000"),
    case("episodes-float", "episodes=1.5", "episodes=1.5 is invalid; valid values: integers 1..1,000,000"),
    case("episodes-null", "episodes=null", "episodes=None is invalid; valid values: integers 1..1,000,000"),
    case("seed-str", "seed=x", "seed='x' is invalid; valid values: integers >= 0"),
    case("progress-str", "progress=maybe", "progress='maybe' is invalid; valid values: true, false"),
    case("embeddings-int", "embeddings=3", "embeddings=3 is invalid; valid values: true, false"),
    case("resume-str", "resume=yes", "resume='yes' is invalid; valid values: true, false"),
    case("tracking-enabled-str", "tracking.enabled=maybe", "tracking.enabled='maybe' is invalid; valid values: true"),
    case("view-first-negative", "view.first=-1", "view.first=-1 is invalid; valid values: integers >= 0"),
    case("view-enabled-str", "view.enabled=maybe", "view.enabled='maybe' is invalid; valid values: true, false"),
    case("concurrency-str", "max_concurrency=abc", "max_concurrency='abc' is invalid; valid values: integers 1..1024"),
    case("datasets-dir-int", "datasets_dir=3", "datasets_dir=3 is invalid; valid values: a path, or null"),
    case("objective-int", "objective=3", "objective needs 'metric' and takes only metric,"),
    case(
        "max-rounds-str",
        f"{PANEL} graph.max_rounds=abc",
        "graph.max_rounds must be an integer, got 'abc'; valid range: [1, 50]",
    ),
    case(
        "threshold-str",
        f"{PANEL} graph.convergence_threshold=high",
        "graph.convergence_threshold must be a number, got 'high'; valid range: [0.0, 1.0]",
    ),
    case("budget-null", f"{INTERVIEW} graph.budget=null", "graph.budget must be a number, got None; valid range:"),
    case("weights-not-mapping", f"{PANEL} graph.strength_weights=3", "graph.strength_weights must be a mapping"),
    case("scenario-int", f"{INTERVIEW} scenario=3", "unknown scenario='3' for graph interview; valid choices: all,"),
    case("scenario-empty-list", f"{INTERVIEW} scenario=[]", "names no scenario for graph interview; valid choices: all,"),
    case("scenario-empty", f"{INTERVIEW} scenario=''", "names no scenario for graph interview; valid choices: all,"),
    case(
        "scenario-unknown", f"{PANEL} scenario=atlantis", "scenario='atlantis' for graph socratic_panel; valid choices: all,"
    ),
    case(
        "scenario-misspelled",
        f"{PANEL} scenario=drug_lunch",
        "unknown scenario='drug_lunch' for graph socratic_panel (did you mean scenario=drug_launch?); valid choices: all,",
    ),
    case(
        "scenario-unknown-in-list", f"{PANEL} scenario=[edtech_tutoring,atlantis]", "unknown scenario='atlantis' for graph"
    ),
    # out of range, in each graph and elsewhere
    case(
        "panel-threshold",
        f"{PANEL} graph.convergence_threshold=1.5",
        "graph.convergence_threshold=1.5 is out of range; valid range: [0.0, 1.0]",
    ),
    case("panel-min-rounds", f"{PANEL} graph.min_rounds=6", "graph.min_rounds=6 must not exceed graph.max_rounds=5"),
    case(
        "maieutic-similarity",
        "graph=maieutic graph.similarity_floor=2",
        "graph.similarity_floor=2.0 is out of range; valid range: [-1.0, 1.0]",
    ),
    case("maieutic-at-cap", "graph=maieutic graph.at_cap=explode", "graph.at_cap='explode' is invalid; valid choices:"),
    case(
        "committee-size",
        "graph=committee graph.committee_size=3",
        "graph.committee_size=3 is out of range; valid range: [5, 12]",
    ),
    case("committee-weights", "graph=committee graph.vote_weight=0.9", "must be 1, got"),
    case(
        "tribunal-pass-score",
        "graph=tribunal graph.pass_score=6",
        "graph.pass_score=6.0 is out of range; valid range: [1.0, 5.0]",
    ),
    case(
        "tribunal-reevaluations",
        "graph=tribunal graph.max_reevaluations=-1",
        "graph.max_reevaluations=-1 is out of range; valid range: [0, 10]",
    ),
    case(
        "interview-cost",
        f"{INTERVIEW} graph.question_cost=0",
        "graph.question_cost=0.0 is out of range; valid range: [0.001, 1000.0]",
    ),
    case("episodes-zero", "episodes=0", "episodes=0 is invalid; valid values: integers 1..1,000,000"),
    case(
        "episodes-huge", "episodes=10000000000000", "episodes=10000000000000 is invalid; valid values: integers 1..1,000,000"
    ),
    case("seed-negative", "seed=-1", "seed=-1 is invalid; valid values: integers >= 0"),
    case("concurrency-zero", "max_concurrency=0", "max_concurrency=0 is invalid; valid values: integers 1..1024"),
    case("traces-word", "traces=some", "traces='some' is invalid; valid values: auto, all, none, K", "sample:K"),
    case("traces-negative", "traces=-3", "traces=-3 is invalid; valid values: auto, all, none"),
    case("max-error-rate", "max_error_rate=1.5", "max_error_rate=1.5 is out of range; valid range: [0, 1]"),
    case("crash-rate", "participants.crash_rate=2", "participants.crash_rate=2 is out of range; valid range: [0, 1]"),
    case("failure-rate", "participants.failure_rate=1", "participants.failure_rate=1 is out of range; valid range: [0, 1)"),
    case("llm-temperature", f"{OPENAI} llm.temperature=-1", "llm.temperature=-1.0 is out of range; valid range: [0.0, 2.0]"),
    case("llm-timeout", f"{OPENAI} llm.timeout_s=0", "llm.timeout_s=0.0 is out of range; valid range: >= 0.01"),
    case("llm-n-ctx", f"{LLAMA} llm.n_ctx=10", "llm.n_ctx=10 is out of range; valid range: [256, 131072]"),
    case("llm-in-flight", f"{OPENAI} llm.max_in_flight=0", "llm.max_in_flight=0 is out of range"),
    # models and servers
    case(
        "surrogate-without-llm",
        f"{INTERVIEW} participants=surrogate",
        "participants=surrogate needs an LLM: add llm=llamacpp or llm=openai",
    ),
    case(
        "model-missing",
        f"{LLAMA} llm.model_path=/no/such/model.gguf",
        "llm.model_path=/no/such/model.gguf: no such file; give a GGUF file, or null for llm.preset",
    ),
    case("model-empty", f"{LLAMA} llm.model_path={{tmp}}/empty.gguf", "empty.gguf: an empty file;", "give a .gguf file"),
    case(
        "model-text",
        f"{LLAMA} llm.model_path={{tmp}}/notes.gguf",
        "notes.gguf: not a GGUF file (it starts with",
        "give a .gguf file",
    ),
    case(
        "model-truncated",
        f"{LLAMA} llm.model_path={{tmp}}/trunc.gguf",
        "trunc.gguf: a GGUF file whose header is truncated or corrupt",
        "replace the file",
    ),
    case("model-folder", f"{LLAMA} llm.model_path={{tmp}}/models", "models: a folder, not a file; give a GGUF file"),
    case(
        "chat-format",
        f"{LLAMA} llm.chat_format=alpaca",
        "unknown llm.chat_format='alpaca'; valid choices: auto, gemma, chatml",
    ),
    case("llm-role", f"{LLAMA} +llm.roles.nobody=scripted", "unknown llm.roles.nobody; valid roles here:"),
    case("preset", f"{LLAMA} llm.preset=llama-70b", "unknown llm.preset='llama-70b'; valid choices: gemma3-270m,"),
    case(
        "server-unreachable",
        f"{OPENAI} llm.base_url=http://127.0.0.1:9/v1",
        "llm.base_url=http://127.0.0.1:9/v1: no OpenAI-compatible server answers there",
    ),
    case(
        "server-not-a-url",
        f"{OPENAI} llm.base_url=notaurl",
        "llm.base_url=notaurl is not an http(s) URL; give the server's /v1 URL",
    ),
    case(
        "server-key-unset",
        f"{OPENAI} llm.api_key_env=DIALECTICA_UNSET_KEY",
        "llm.api_key_env=DIALECTICA_UNSET_KEY: that environment variable is not set",
    ),
    # tracking, folders and paths
    case(
        "tracking-scheme",
        "tracking.uri=bogus://x",
        "tracking.uri=bogus://x: unknown scheme 'bogus://'; valid: sqlite:///<file>",
        "tracking=none",
    ),
    case("tracking-sqlite-two-slashes", "tracking.uri=sqlite://ml.db", "an SQLite URI is sqlite:///<file>"),
    case(
        "tracking-sqlite-under-file",
        "tracking.uri=sqlite:///{tmp}/afile/ml.db",
        "the MLflow database cannot be created there",
        "afile is a file, not a folder); give a writable path, or tracking=none",
    ),
    case(
        "run-dir-under-file",
        "hydra.run.dir={tmp}/afile/run",
        "hydra.run.dir=",
        "the run folder cannot be created there",
        "afile is a file, not a folder); give a writable folder",
    ),
    case(
        "run-dir-is-file",
        "hydra.run.dir={tmp}/afile",
        "the run folder cannot be created there",
        "afile is a file, not a folder",
    ),
    case(
        "datasets-dir-missing",
        "datasets_dir=/no/such/dir",
        "datasets_dir=/no/such/dir: no such directory; give a folder holding <graph>/scenarios/*.yaml",
    ),
    case("datasets-dir-is-file", "datasets_dir={tmp}/afile", "afile: not a directory; give a folder holding"),
    case(
        "embedding-cache-under-file",
        f"{PANEL} embedding_cache={{tmp}}/afile/e.sqlite",
        "embedding_cache=",
        "the cache cannot be created there",
        "give a writable path, or null",
    ),
]


@pytest.mark.parametrize(("args", "fragments"), INPUT_CASES)
def test_bad_input_is_one_line_exit_2_and_no_run(tmp_path, args, fragments):
    _materials(tmp_path)
    before = set(tmp_path.iterdir())
    proc = _run(tmp_path, *(a.replace("{tmp}", str(tmp_path)) for a in args))
    _one_line(proc, 2, fragments)
    assert set(tmp_path.iterdir()) == before  # no run directory, no MLflow database, nothing else
    assert "sk-live-123456" not in proc.stderr  # a secret given where none belongs is not echoed either


@pytest.mark.skipif(os.geteuid() == 0, reason="the superuser writes through a read-only mode")
@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["hydra.run.dir={tmp}/ro/run"], ("the run folder cannot be created there", "ro is not writable")),
        (["tracking.uri=sqlite:///{tmp}/ro/ml.db"], ("the MLflow database cannot be created there", "ro is not writable")),
    ],
)
def test_read_only_folder_is_one_line(tmp_path, args, fragments):
    (tmp_path / "ro").mkdir(mode=0o555)
    try:
        proc = _run(tmp_path, *(a.replace("{tmp}", str(tmp_path)) for a in args))
        _one_line(proc, 2, fragments)
        assert not any((tmp_path / "ro").iterdir())
        assert not (tmp_path / "run").exists() and not (tmp_path / "ml.db").exists()
    finally:
        (tmp_path / "ro").chmod(0o755)


def _bomb(name: str) -> bytes:
    """A billion-laughs file: nine levels of nine aliases each, under a scenario's own keys."""
    lines = [f"name: {name}", 'query: "q"', 'l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    return ("\n".join([*lines, "claims: *l8"]) + "\n").encode()


def _city(name: str, tail: bytes = b"") -> bytes:
    text = (DATASETS / "socratic_panel" / "scenarios" / "city_transit.yaml").read_bytes()
    return text.replace(b"name: city_transit", f"name: {name}".encode()).split(b"experts:")[0] + tail if tail else text


def _persona(graph: str, source: str, name: str, old: bytes, new: bytes) -> bytes:
    """A shipped scenario renamed ``name``, with its first persona value ``old`` written as ``new``."""
    text = (DATASETS / graph / "scenarios" / f"{source}.yaml").read_bytes()
    return text.replace(f"name: {source}".encode(), f"name: {name}".encode(), 1).replace(old, new, 1)


_HUGE = b'name: huge\nquery: "' + b"x" * (1 << 20) + b'"\n'
SCENARIO_CASES = [
    pytest.param(
        "socratic_panel",
        "malformed",
        b"name: malformed\nquery: [unclosed\n",
        ("malformed.yaml: not valid YAML: while parsing a flow sequence", "line 2"),
        id="malformed-yaml",
    ),
    pytest.param("socratic_panel", "empty", b"", ("empty.yaml: the file is empty",), id="empty"),
    pytest.param(
        "socratic_panel",
        "latin1",
        b'name: latin1\nquery: "caf\xe9"\n',
        ("latin1.yaml: not UTF-8 text (byte 0xe9 at offset 24)",),
        id="non-utf8",
    ),
    pytest.param(
        "socratic_panel", "huge", _HUGE, (f"huge.yaml: {len(_HUGE):,} bytes, over the 1 MiB cap on data files",), id="huge"
    ),
    pytest.param(
        "socratic_panel", "bomb", _bomb("bomb"), ("bomb.yaml: its aliases expand past 1,000,000 values",), id="yaml-bomb"
    ),
    pytest.param(
        "socratic_panel",
        "alist",
        b"- 1\n- 2\n",
        ("alist.yaml: expected a mapping at the top level, got list",),
        id="not-a-mapping",
    ),
    pytest.param(
        "socratic_panel",
        "bare",
        b"name: bare\n",
        ("bare.yaml: missing or malformed key 'query'",),
        id="panel-missing-fields",
    ),
    pytest.param(
        "socratic_panel",
        "shapes",
        _city("shapes", b"experts: [1, 2, 3]\n"),
        ("shapes.yaml: a value has the wrong shape (TypeError",),
        id="panel-wrong-shape",
    ),
    pytest.param(
        "socratic_panel",
        "renamed",
        _city("renamed"),
        ("renamed.yaml: name 'city_transit' differs from the file name; rename one of them",),
        id="wrong-name",
    ),
    pytest.param(
        "socratic_panel",
        "words",
        _persona("socratic_panel", "city_transit", "words", b"stubbornness: 0.3", b'stubbornness: "very"'),
        ("persona 'equity_advocate': key 'stubbornness' must be a number", "got 'very'"),
        id="panel-persona-text",
    ),
    pytest.param(
        "committee",
        "words",
        _persona("committee", "city_congestion_charge", "words", b"confidence: 0.8", b'confidence: "quite sure"'),
        ("key 'confidence' must be a number", "got 'quite sure'"),
        id="committee-persona-text",
    ),
    pytest.param(
        "maieutic", "bare", b"name: bare\n", ("bare.yaml: missing or malformed key 'topic'",), id="maieutic-missing-fields"
    ),
    pytest.param(
        "committee",
        "bare",
        b"name: bare\n",
        ("bare.yaml: missing or malformed key 'question'",),
        id="committee-missing-fields",
    ),
    pytest.param(
        "tribunal", "bare", b"name: bare\n", ("bare.yaml: missing or malformed key 'subject'",), id="tribunal-missing-fields"
    ),
    pytest.param("tribunal", "nameless", b"subject: x\n", ("nameless.yaml: it has no 'name' (write name: 'nameless'",)),
    pytest.param("interview", "12", b"name: 12\n", ("12.yaml: name 12 is not a string (write name: '12'",)),
    pytest.param(
        "interview",
        "stranger",
        b"name: stranger\npersona: nobody\nschema: flow_shop\n",
        ("stranger.yaml: persona 'nobody' not found; valid choices: bakery,",),
        id="interview-unknown-persona",
    ),
]


@pytest.mark.parametrize(("graph", "name", "content", "fragments"), SCENARIO_CASES)
def test_bad_scenario_file_is_named(tmp_path, graph, name, content, fragments):
    datasets = tmp_path / "datasets"
    shutil.copytree(DATASETS / graph, datasets / graph)
    (datasets / graph / "scenarios" / f"{name}.yaml").write_bytes(content)
    proc = _run(tmp_path, f"graph={graph}", f"datasets_dir={datasets}")
    hint = "" if name == "renamed" else f"; fix the file, or move it out of {datasets / graph / 'scenarios'}"
    _one_line(proc, 2, (f"malformed scenario file {datasets / graph / 'scenarios'}", *fragments, hint))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["datasets"]


def test_no_scenarios_under_datasets_dir_says_what_to_add(tmp_path):
    (tmp_path / "datasets" / "interview").mkdir(parents=True)
    proc = _run(tmp_path, "graph=interview", f"datasets_dir={tmp_path / 'datasets'}")
    _one_line(proc, 2, ("no scenarios for graph interview under", "add <name>.yaml files there, or set datasets_dir"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["datasets"]


def _run_injected(tmp: Path, at: At, error: str, *args: str, env: dict[str, str] | None = None):
    """The real CLI with one fault injected where the run would not expect it: a bug's exception, not bad input."""
    return run_at(
        at,
        [
            f"hydra.run.dir={tmp / 'run'}",
            "tracking=none",
            "progress=false",
            "embeddings=false",
            "graph=socratic_panel",
            "episodes=2",
            *args,
        ],
        tmp,
        error=error,
        env=env,
    )


def test_an_unexpected_error_during_the_run_exits_1_and_keeps_the_run(tmp_path):
    proc = _run_injected(tmp_path, At("dialectica.sim.engine.batch", "draw"), "RuntimeError('the disk is on fire')")
    _one_line(
        proc,
        1,
        (
            "unexpected RuntimeError: the disk is on fire; a fault during the run",
            "set HYDRA_FULL_ERROR=1 to see the traceback",
        ),
    )
    assert len((tmp_path / "run" / "episodes.jsonl").read_text().splitlines()) == 2  # the episodes stay


def test_bad_input_into_the_default_run_folder_leaves_no_empty_results_folder(tmp_path):
    proc = dialectica(["graph=interview", "graph.budget=-1", "tracking=none"], tmp_path, None)
    _one_line(proc, 2, ("graph.budget=-1.0 is out of range",))
    assert not any(tmp_path.iterdir())  # not even the results/runs/ Hydra made for the run


@pytest.mark.parametrize(
    ("key", "typo", "meant"),
    [("metric", "convergance_rate", "convergence_rate"), ("floor_metric", "ascr_recal_mean", "ascr_recall_mean")],
)
def test_an_objective_naming_no_logged_metric_is_refused_not_scored_zero(tmp_path, key, typo, meant):
    given = {"metric": "convergence_rate", "floor_metric": "depth_mean", "floor": 0.5} | {key: typo}
    proc = _run(tmp_path, "graph=interview", "episodes=2", "tracking=none",
                "+objective={" + ",".join(f"{k}:{v}" for k, v in given.items()) + "}")  # fmt: skip
    _one_line(proc, 2, (f"objective.{key}={typo} is not a metric this run logged (did you mean {meant}?); valid:",))
    assert not (tmp_path / "run" / "summary.json").exists()  # no objective written as if the trial scored
    given[key] = meant  # corrected, the same run resumes: the objective changes no episode
    fixed = _run(tmp_path, "graph=interview", "episodes=2", "tracking=none", "resume=true",
                 "+objective={" + ",".join(f"{k}:{v}" for k, v in given.items()) + "}")  # fmt: skip
    assert fixed.returncode == 0 and (tmp_path / "run" / "summary.json").exists(), fixed.stderr[-2000:]


def test_an_unexpected_error_before_the_run_exits_1_and_leaves_nothing(tmp_path):
    proc = _run_injected(tmp_path, At("dialectica.sim.config.loader", "from_composed"), "AttributeError('a bug')")
    _one_line(
        proc, 1, ("unexpected AttributeError: a bug; before the run started", "set HYDRA_FULL_ERROR=1 to see the traceback")
    )
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("where", ["hydra", "app"])
def test_hydra_full_error_shows_the_traceback(tmp_path, where):
    if where == "hydra":  # an error Hydra raises while composing the config
        proc = _run(tmp_path, "per_graph.nope.x=1", env={"HYDRA_FULL_ERROR": "1"})
    else:  # an exception escaping the app
        proc = _run_injected(
            tmp_path,
            At("dialectica.sim.config.loader", "from_composed"),
            "AttributeError('a bug')",
            env={"HYDRA_FULL_ERROR": "1"},
        )
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback (most recent call last)" in proc.stderr
    assert ("ConfigCompositionException" if where == "hydra" else "AttributeError: a bug") in proc.stderr


EPISODES = 20


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_says_where_its_episodes_are_and_how_to_resume(tmp_path, signum, code):
    run = tmp_path / "run"
    # the signal arrives as the third record is about to be written, as a user's ^C would mid-run
    proc = run_at(
        At("dialectica.sim.records", "append", 3),
        [
            f"hydra.run.dir={run}",
            "tracking=none",
            "progress=false",
            "embeddings=false",
            "graph=socratic_panel",
            f"episodes={EPISODES}",
        ],
        tmp_path,
        signum,
    )
    stderr = proc.stderr
    episodes = run / "episodes.jsonl"
    done = episodes.read_text().count("\n")
    assert 2 <= done <= 3, done
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert proc.returncode == code, stderr[-3000:]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr[-3000:]
    assert lines[0] == (
        f"dialectica: interrupted ({signal.Signals(signum).name}); the finished episodes are in "
        f"{episodes}; to resume, run the same command with resume=true hydra.run.dir={run}"
    )


def _not_a_store(path: Path, kind: str) -> None:
    if kind == "random bytes":
        path.write_bytes(bytes(range(256)) * 8)
    elif kind == "cut short":
        path.write_bytes(b"SQLite format 3\x00" + b"\x10\x00\x01\x01" + b"\x00" * 80)
    else:
        import sqlite3

        with sqlite3.connect(path) as con:
            con.execute("CREATE TABLE notes (text)")


@pytest.mark.parametrize("graph", ["maieutic", "interview"])
@pytest.mark.parametrize("kind", ["random bytes", "cut short", "another database"])
def test_a_tracking_file_that_is_no_mlflow_store_is_one_line(tmp_path, graph, kind):
    store = tmp_path / "not_mlflow.db"
    _not_a_store(store, kind)
    before = set(tmp_path.iterdir())
    proc = _run(tmp_path, f"graph={graph}", "episodes=1", f"tracking.uri=sqlite:///{store}")
    _one_line(proc, 2, (f"tracking.uri=sqlite:///{store}", "is not a usable MLflow store", "tracking=none"))
    assert set(tmp_path.iterdir()) == before


def test_a_scenario_name_mlflow_refuses_in_metric_names_is_logged_under_a_safe_one(tmp_path):
    shutil.copytree(DATASETS / "maieutic", tmp_path / "data" / "maieutic")
    data = tmp_path / "data" / "maieutic" / "scenarios"
    text = (data / "curious_justice.yaml").read_text().replace("name: curious_justice", "name: justice (v2)", 1)
    for path in data.glob("*.yaml"):
        path.unlink()
    (data / "justice (v2).yaml").write_text(text)
    proc = _run(
        tmp_path,
        "graph=maieutic",
        "episodes=2",
        f"datasets_dir={tmp_path / 'data'}",
        "embeddings=false",
        "view.enabled=false",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json

    from mlflow.tracking import MlflowClient

    entry = json.loads((tmp_path / "run" / "summary.json").read_text())["graphs"]["maieutic"]
    assert "scenario/justice (v2)/convergence_rate" in entry["metrics"]  # the summary keeps the name as written
    logged = MlflowClient(f"sqlite:///{tmp_path / 'ml.db'}").get_run(entry["mlflow_run_id"]).data.metrics
    assert "scenario/justice _v2_/convergence_rate" in logged


@pytest.mark.parametrize("graph", ["socratic_panel", "interview"])
def test_a_tracking_failure_after_the_episodes_costs_nothing_and_resume_logs_them(tmp_path, graph):
    db = tmp_path / "ml.db"
    args = [
        f"hydra.run.dir={tmp_path / 'run'}",
        f"tracking.uri=sqlite:///{db}",
        "progress=false",
        "embeddings=false",
        "view.enabled=false",
        f"graph={graph}",
        "episodes=2",
    ]
    proc = run_at(
        At("dialectica.sim.tracking.runs", "MlflowRun.metrics"),
        args,
        tmp_path,
        error="RuntimeError('the store went away: http://user:hunter2@store')",
    )
    said = [line for line in proc.stderr.splitlines() if line.startswith("dialectica:")]  # beside MLflow's own INFO
    assert proc.returncode == 0 and len(said) == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    for fragment in (
        f"graph {graph}: logging to MLflow failed (RuntimeError: the store went away",
        f"its episodes and summary are in {tmp_path / 'run'}",
        f"run the same command with resume=true hydra.run.dir={tmp_path / 'run'} to log them",
    ):
        assert fragment in said[0], said[0]
    assert "hunter2" not in proc.stderr  # a credential in the error is scrubbed like everywhere
    import json

    entry = json.loads((tmp_path / "run" / "summary.json").read_text())["graphs"][graph]
    assert "tracking_error" in entry and entry["metrics"]["episodes"] == 2
    before = (tmp_path / "run" / "episodes.jsonl").read_text()
    proc = _run(tmp_path, *args[2:], "resume=true")
    assert proc.returncode == 0 and "dialectica: warning" not in proc.stderr, proc.stderr[-2000:]
    assert (tmp_path / "run" / "episodes.jsonl").read_text() == before  # no episode ran again
    entry = json.loads((tmp_path / "run" / "summary.json").read_text())["graphs"][graph]
    from mlflow.tracking import MlflowClient

    assert "tracking_error" not in entry
    assert MlflowClient(f"sqlite:///{db}").get_run(entry["mlflow_run_id"]).data.metrics["episodes"] == 2


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (
            ["--tokens", "committee", "--tokens-set", "graph.committee_siz=5"],
            "unknown key graph.committee_siz (did you mean",
        ),
        (["--tokens", "nosuch"], "unknown graph='nosuch'; valid choices: all, "),  # then every graph found here
    ],
)
def test_a_bad_token_benchmark_is_one_line_before_a_model_loads(tmp_path, capsys, args, fragment):
    from dialectica.sim.cli.main import dispatch

    assert dispatch("bench", [*args, "--only-tokens", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dialectica: error: --tokens/--tokens-set: ") and fragment in err and "\n" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("command", "args", "fragment"),
    [
        ("compare", ["--graphs", "interview", "maieutic"], "'maieutic' is not a key=value override; --graphs takes"),
        (
            "compare",
            ["--graphs", "interview", "graph.budgt=3"],
            "unknown key graph.budgt (did you mean graph.budget?); valid keys: budget",
        ),
        ("calibrate", ["graph=interview", "mode=per_persona"], "mode='per_persona' is not a fit mode; valid modes: shared"),
        ("plan", ["results", "dif=0.05"], "unknown key dif (did you mean diff?); valid keys: diff, power, alpha, json"),
        (
            "sequential",
            ["graph=interview", "grid.budget=4,8", "graph.budget=6"],
            "graph.budget=6: budget is the grid's (grid.budget=...); drop graph.budget=",
        ),
        ("sequential", ["graph=interview", "grid.budget=4,8", "seed=0,1"], "seed=0,1: sequential takes one value of seed;"),
        ("validity", ["graph=interview", "graph.budget=6"], "graph.budget=6: budget is the grid's"),  # its own grid's
        ("sequential", ["graph=interview", "scenario=a,b"], "several scenarios are a list, scenario=[a,b]"),
        ("validity", ["graph=interview", "episodes=2,4"], "episodes=2,4: validity takes one value of episodes;"),
    ],
)
def test_a_bad_subcommand_override_is_one_line_before_anything_runs(tmp_path, capsys, command, args, fragment):
    from dialectica.sim.cli.main import dispatch

    out = tmp_path / "out"
    assert dispatch(command, [*args, *(["--out", str(out)] if command == "compare" else [])]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dialectica: error: ") and fragment in err and "\n" not in err
    assert not out.exists()
