"""MkDocs hook: the reference pages' generated parts, built from the code at every ``mkdocs build``.

A page holds a marker where a generated part goes:

- ``<!-- generated: config -->``: every key of the Hydra config tree (``conf/``), its default and the comment
  beside it, with the type and valid values that the typed config declares (``RunConfig``, ``LLMSettings``,
  ``FaultRates``, ``ViewOptions``, each graph's params) or that ``shape.check_shape`` answers for a bad value;
- ``<!-- generated: cli -->``: ``dialectica --help`` and every subcommand's ``--help``, as the command prints it;
- ``<!-- generated: records -->``: the fields of ``EpisodeRecord`` (and of a transcript ``Turn``) with their JSON
  schema.

It also lays out the installed package's import tree (``build/docs-api/dialectica``, links to ``dialectica/``,
``sim/``, ``graphs/``, ``metrics/``) for mkdocstrings, which reads source files and cannot follow the folder
mapping of ``setup.py``. Nothing here changes the project: it imports and reads only.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
API_TREE = ROOT / "build" / "docs-api"
PACKAGE_FOLDERS = ("sim", "graphs", "metrics")
COLUMNS = "100"  # argparse wraps --help to $COLUMNS: fixed, so the page does not depend on the terminal
BAD = {"?": "?"}  # a value no key accepts: what check_shape says about it names the key's valid values
KEY_LINE = re.compile(r"^(?P<indent>\s*)(?P<key>[A-Za-z_][\w.]*):(?P<value>[^#]*?)\s*(?:#\s?(?P<comment>.*))?$")
COMMENT_LINE = re.compile(r"^(?P<indent>\s+)#\s?(?P<comment>.*)$")
VALID = re.compile(r"valid (?:values|range|choices): (?P<valid>.*)$")


# ---------------------------------------------------------------------------------------------------------------
# MkDocs events


@event_priority(100)  # before mkdocstrings' own on_config, which looks for its paths
def on_config(config: Any, **kwargs: Any) -> Any:
    """Links the installed package's layout under ``build/docs-api`` before mkdocstrings reads it."""
    api_tree()
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any, **kwargs: Any) -> str:
    """Replaces each ``<!-- generated: NAME -->`` marker with its part."""
    for name, make in GENERATED.items():
        marker = f"<!-- generated: {name} -->"
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown


def api_tree() -> Path:
    """``build/docs-api/dialectica``: the package as it installs (``setup.py`` maps the top-level folders under
    ``dialectica.``), as links, like ``.ci/typecheck``'s tree."""
    package = API_TREE / "dialectica"
    package.mkdir(parents=True, exist_ok=True)
    wanted = {p.name: p for p in (ROOT / "dialectica").iterdir() if p.suffix in (".py", ".typed")}
    wanted |= {name: ROOT / name for name in PACKAGE_FOLDERS}
    for name, target in wanted.items():
        link = package / name
        if link.is_symlink() and Path(os.readlink(link)) == target:
            continue
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target)
    return API_TREE


# ---------------------------------------------------------------------------------------------------------------
# Config reference


@dataclasses.dataclass
class Key:
    """One key of a config file: its dotted name, default as written, the comment beside it."""

    name: str
    default: Any
    comment: str = ""
    type: str = ""
    valid: str = ""


def yaml_keys(path: Path) -> list[Key]:
    """The keys of a config file, nested blocks as dotted names, each with the comment on its line (and on the
    indented comment lines under it); ``defaults``, ``hydra`` and flow mappings' insides are not keys."""
    data = yaml.safe_load(path.read_text()) or {}
    keys: list[Key] = []
    stack: list[tuple[int, str]] = []  # (indent, name) of the enclosing blocks
    skipping: int | None = None  # indent of a skipped block (defaults:, hydra:)
    for line in path.read_text().splitlines():
        if (match := COMMENT_LINE.match(line)) and keys and skipping is None:
            if len(match["indent"]) > 0 and keys[-1].comment:
                keys[-1].comment += " " + match["comment"].strip()
            continue
        match = KEY_LINE.match(line)
        if match is None:
            continue
        indent = len(match["indent"])
        if skipping is not None and indent > skipping:
            continue
        skipping = None
        while stack and stack[-1][0] >= indent:
            stack.pop()
        name = match["key"]
        if not stack and name in ("defaults", "hydra"):
            skipping = indent
            continue
        dotted = ".".join([*(n for _, n in stack), name])
        if match["value"].strip() == "":  # a block: its keys follow, indented
            stack.append((indent, name))
            continue
        keys.append(Key(dotted, _lookup(data, dotted), (match["comment"] or "").strip()))
    return keys


def _lookup(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        data = data[part]
    return data


def header(path: Path) -> str:
    """The comment lines that open a config file (less Hydra's ``@package`` line)."""
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if not text.startswith("@package"):
            lines.append(text)
    return " ".join(lines)


def described(keys: list[Key], docs: dict[str, str]) -> None:
    """Gives a key without a comment in its file the typed class's own words for it (``Attributes:``)."""
    for k in keys:
        if not k.comment:
            k.comment = docs.get(k.name.rpartition(".")[2], "")


def _type(hint: Any) -> str:
    return str(hint).replace("typing.", "")


def field_info(cls: type) -> dict[str, tuple[str, str]]:
    """name -> (type, valid range) of a dataclass's fields; the range from ``bounded`` fields' metadata."""
    from dialectica.sim.authoring.params import range_text

    out = {}
    for f in dataclasses.fields(cls):
        low, high = f.metadata.get("range", (None, None))
        out[f.name] = (_type(f.type), range_text(low, high) if low is not None or high is not None else "")
    return out


def attribute_docs(cls: type) -> dict[str, str]:
    """A Google-style ``Attributes:`` section of a class docstring, name -> text (a line naming several fields,
    ``graph, episode, seed: ...``, gives each the same text)."""
    doc = (cls.__doc__ or "").split("Attributes:", 1)
    if len(doc) < 2:
        return {}
    out: dict[str, str] = {}
    names: list[str] = []
    for line in doc[1].splitlines():
        match = re.match(r"^ {4,8}(?P<names>[\w, ]+?): (?P<text>.*)$", line)
        if match and not line.startswith(" " * 9):
            names = [n.strip() for n in match["names"].split(",")]
            for name in names:
                out[name] = match["text"].strip()
        elif line.strip() and names:
            for name in names:
                out[name] += " " + line.strip()
        elif not line.strip() and out:
            names = []
    return out


@functools.cache
def composed() -> Any:
    """The default config, composed by Hydra as ``dialectica`` composes it, its ``${...}`` resolved (Hydra's global
    state left as it was)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf, open_dict

    from dialectica.sim.config.resources import CONF_DIR

    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[f"hydra.runtime.cwd={ROOT}"], return_hydra_config=True)
    hydra_config = HydraConfig.instance()
    previous = hydra_config.cfg
    try:
        hydra_config.set_config(cfg)
        with open_dict(cfg):
            del cfg["hydra"]
        OmegaConf.resolve(cfg)
    finally:
        hydra_config.cfg = previous
    return cfg


def answer(key: str, check: Callable[[Any], object]) -> str:
    """The valid values the check ``check(bad)`` names for ``key`` when given a value it refuses (a mapping, then a
    string no option is called), or ''."""
    from dialectica.sim.authoring.params import ConfigError

    for bad in (BAD, "?"):
        try:
            check(bad)
        except ConfigError as exc:
            message = str(exc)
            if key.rpartition(".")[2] not in message:
                continue
            if found := VALID.search(message):
                return found["valid"]
            if needs := re.search(r"(needs .*?); got", message):
                return needs[1]
    return ""


def checked(key: str) -> str:
    """What the config check (``shape.check_shape``, then ``FaultRates``) answers for a bad value of ``key``."""
    from omegaconf import OmegaConf, open_dict

    from dialectica.sim.authoring.faults import FaultRates
    from dialectica.sim.config.shape import check_shape, container

    def check(bad: Any) -> None:
        cfg = copy.deepcopy(composed())
        with open_dict(cfg):
            OmegaConf.update(cfg, key, bad, merge=False)
        check_shape(cfg)
        FaultRates.from_config(container(cfg.participants))

    return answer(key, check)


def _cell(value: Any) -> str:
    """A value as a table cell: its YAML spelling in backticks, pipes escaped."""
    if isinstance(value, str) and value == "":
        text = "''"
    else:
        text = yaml.safe_dump(value, default_flow_style=True, width=10_000, sort_keys=False).strip()
        text = text.removesuffix("\n...").removesuffix("...").strip()
    return f"`{text}`"  # a pipe inside a code span does not split a table's cells


def _text(text: str) -> str:
    """A config comment as a table cell: pipes escaped, and ``<placeholder>`` kept as text outside code spans
    (Markdown would pass it on as an HTML tag, which the browser hides)."""
    parts = text.replace("|", "\\|").split("`")
    return "`".join(part if i % 2 else part.replace("<", "&lt;").replace(">", "&gt;") for i, part in enumerate(parts))


def table(keys: list[Key], prefix: str = "") -> str:
    rows = ["| key | default | type | valid values | what it is |", "|---|---|---|---|---|"]
    for k in keys:
        type_ = f"`{k.type}`" if k.type else ""
        rows.append(f"| `{prefix}{k.name}` | {_cell(k.default)} | {type_} | {_text(k.valid)} | {_text(k.comment)} |")
    return "\n".join(rows)


def top_level_keys() -> list[Key]:
    """``conf/config.yaml``'s keys, typed by ``RunConfig`` (and ``TrackingConfig``, ``ViewOptions``) where it holds
    them, with what ``check_shape`` accepts."""
    from dialectica.sim.config.resources import CONF_DIR
    from dialectica.sim.config.typed import RunConfig, TrackingConfig
    from dialectica.sim.config.view import ViewOptions

    run, tracking, view = field_info(RunConfig), field_info(TrackingConfig), field_info(ViewOptions)
    keys = yaml_keys(CONF_DIR / "config.yaml")
    for k in keys:
        head, _, tail = k.name.partition(".")
        found = view.get(tail) if head == "view" else tracking.get(k.name) or run.get(k.name)
        k.type, k.valid = found or ("", "")
        k.valid = k.valid or checked(k.name)
    described([k for k in keys if k.name.startswith("view.")], attribute_docs(ViewOptions))
    return keys


def group_keys(group: str, option: str) -> list[Key]:
    """The keys of ``conf/<group>/<option>.yaml`` (after the options its ``defaults`` pull in), typed."""
    from dialectica.sim.authoring.faults import FaultRates
    from dialectica.sim.config.resources import CONF_DIR
    from dialectica.sim.config.typed import TrackingConfig
    from dialectica.sim.llm.settings import LLMSettings

    path = CONF_DIR / group / f"{option}.yaml"
    keys = {k.name: k for k in yaml_keys(path)}
    for base in (yaml.safe_load(path.read_text()) or {}).get("defaults", []):
        if isinstance(base, str) and base != "_self_":
            keys = {k.name: k for k in yaml_keys(CONF_DIR / group / f"{base}.yaml")} | keys
    if group == "llm":
        info = field_info(LLMSettings)
        described(list(keys.values()), attribute_docs(LLMSettings))
        values = {k.name: k.default for k in keys.values()}
        for k in keys.values():
            if not info.get(k.name, ("", ""))[1]:
                valid = answer(k.name, lambda bad, name=k.name: LLMSettings.from_dict({**values, name: bad}))
                info[k.name] = (info.get(k.name, ("", ""))[0], valid)
    elif group == "tracking":
        info = field_info(TrackingConfig)
    elif group == "participants":  # FaultRates names its fields otherwise: its docs name the key
        docs = attribute_docs(FaultRates)
        fields = field_info(FaultRates)
        info = {key: fields[name] for name, text in docs.items() for key in re.findall(r"participants\.(\w+)", text)}
    else:
        info = {}
    for k in keys.values():
        k.type, k.valid = info.get(k.name, ("", ""))
        if group in ("participants", "tracking") and not k.valid:
            k.valid = checked(f"{group}.{k.name}")
    return list(keys.values())


def graph_keys(name: str) -> list[Key]:
    """``conf/graph/<name>.yaml``'s keys, typed by the graph's params and cast options (``bounded`` ranges)."""
    from dialectica.sim.config import discovery
    from dialectica.sim.config.resources import CONF_DIR

    keys = yaml_keys(CONF_DIR / "graph" / f"{name}.yaml")
    if name == "all":
        return keys
    spec = discovery.load(name)
    params, cast = field_info(spec.params), field_info(spec.cast_options)
    from dialectica.sim.authoring.params import build_params

    for k in keys:
        head, _, tail = k.name.partition(".")
        k.type, k.valid = (cast.get(tail) if head == "cast" else params.get(k.name)) or ("", "")
        if not k.valid and k.name in params:
            k.valid = answer(k.name, lambda bad, name=k.name: build_params(spec.params, {name: bad}, "graph"))
    return keys


def defaults() -> dict[str, str | None]:
    """group -> its default option (``conf/config.yaml``'s defaults list)."""
    from dialectica.sim.config.resources import CONF_DIR

    out: dict[str, str | None] = {}
    for item in yaml.safe_load((CONF_DIR / "config.yaml").read_text())["defaults"]:
        if isinstance(item, dict):
            out.update(item)
    return out


def config_keys() -> Iterator[str]:
    """Every key the reference lists, as it is given on the command line (``llm.n_ctx``, ``graph.budget``)."""
    from dialectica.sim.config.resources import CONF_DIR

    yield from (k.name for k in yaml_keys(CONF_DIR / "config.yaml"))
    for group in ("graph", "participants", "llm", "tracking"):
        for path in sorted((CONF_DIR / group).glob("*.yaml")):
            yield from (f"{group}.{k.name}" for k in yaml_keys(path))


def config_reference() -> str:
    from dialectica.sim.config.resources import CONF_DIR

    chosen = defaults()
    out = [
        "## Top-level keys",
        "",
        "From `conf/config.yaml`. *type* is the typed config's field (`RunConfig`, `TrackingConfig`, `ViewOptions` "
        "in `sim/config/typed.py` and `sim/config/view.py`); *valid values* is what the config check "
        "(`sim/config/shape.py`) answers when the key holds a value it refuses.",
        "",
        table(top_level_keys()),
    ]
    for group, cls in (
        ("participants", "`FaultRates` (`sim/authoring/faults.py`)"),
        ("llm", "`LLMSettings` (`sim/llm/settings.py`)"),
        ("tracking", "`TrackingConfig` (`sim/config/typed.py`)"),
    ):
        out += ["", f"## `{group}=`", "", f"Each option is a file `conf/{group}/<option>.yaml`; typed by {cls}.", ""]
        for path in sorted((CONF_DIR / group).glob("*.yaml")):
            default = " (the default)" if chosen.get(group) == path.stem else ""
            keys = group_keys(group, path.stem)
            out += [f"### `{group}={path.stem}`{default}", "", header(path), "", table(keys, f"{group}."), ""]
    out += [
        "## `graph=`",
        "",
        "Each built-in graph's thresholds, `conf/graph/<name>.yaml`: `graph.<key>=VALUE` sets one (for a run of "
        "several graphs, `per_graph.<name>.<key>`). *type* and *valid values* are the graph's params dataclass "
        "(`graphs/<name>/params.py`, `bounded` ranges); `graph.cast.<key>` sets an option of its scripted cast. "
        "`dialectica list NAME` prints the same with the graph's scenarios and metrics. A graph used as it is "
        "(`graph=package.module:attr`) takes the keys of [Getting started](../getting-started.md#the-pieces) and "
        "its own knobs.",
        "",
    ]
    for path in sorted((CONF_DIR / "graph").glob("*.yaml")):
        default = " (the default)" if chosen.get("graph") == path.stem else ""
        out += [f"### `graph={path.stem}`{default}", "", header(path), "", table(graph_keys(path.stem), "graph."), ""]
    for group, what in (
        ("experiment", "Presets of several keys: `dialectica +experiment=NAME`."),
        ("hparams_search", "Optuna studies: `dialectica -m hparams_search=NAME` (see [Sweeps](../how-to/sweeps.md))."),
    ):
        out += [f"## `{group}=`", "", what, "", "| option | what it is |", "|---|---|"]
        out += [f"| `{p.stem}` | {_text(header(p))} |" for p in sorted((CONF_DIR / group).glob("*.yaml"))]
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------------------------
# CLI reference


def subcommands() -> dict[str, str]:
    """name -> what it does, from the subcommand table (``sim/cli/main.py``)."""
    from dialectica.sim.cli.main import SUBCOMMANDS

    return {name: what for name, (_, what) in SUBCOMMANDS.items()}


def help_text(*args: str) -> str:
    """``dialectica ARGS --help``'s output, run by this interpreter."""
    script = "import sys; sys.argv[0] = 'dialectica'; from dialectica.sim.cli.main import main; main()"
    proc = subprocess.run(  # noqa: S603 - this interpreter, the project's own entry point
        [sys.executable, "-c", script, *args, "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": COLUMNS},
        check=False,
        timeout=120,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"dialectica {' '.join(args)} --help exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc.stdout.rstrip()


@functools.cache
def cli_reference() -> str:
    names = subcommands()
    with ThreadPoolExecutor(max_workers=4) as pool:
        helps = dict(zip(["", *names], pool.map(lambda n: help_text(*([n] if n else [])), ["", *names]), strict=True))
    out = ["## `dialectica`", "", "```text", helps[""], "```", ""]
    for name, what in names.items():
        out += [f"## `dialectica {name}`", "", what[:1].upper() + what[1:] + ".", "", "```text", helps[name], "```", ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------------------------
# Record schema


def _schema_type(prop: dict[str, Any]) -> str:
    if "anyOf" in prop:
        return " | ".join(_schema_type(p) for p in prop["anyOf"])
    if "$ref" in prop:
        return prop["$ref"].rpartition("/")[2]
    kind = prop.get("type", "any")
    if kind == "array":
        return f"array of {_schema_type(prop.get('items', {}))}"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"object of {_schema_type(prop['additionalProperties'])}"
    return str(kind)


def record_fields(cls: type) -> list[tuple[str, str, str, str]]:
    """(field, JSON type, required or default, description) of a pydantic model, described by its docstring."""
    schema = cls.model_json_schema()  # type: ignore[attr-defined]
    docs = attribute_docs(cls)
    required = set(schema.get("required", []))
    rows = []
    fields = cls.model_fields  # type: ignore[attr-defined]
    for name, prop in schema["properties"].items():
        value = None if name in required else fields[name].get_default(call_default_factory=True)
        default = "required" if name in required else json.dumps(value)
        rows.append((name, _schema_type(prop), default, docs.get(name, "")))
    return rows


@functools.cache
def records_reference() -> str:
    from dialectica.sim.records import OPTIONAL, SCHEMA_VERSION, EpisodeRecord, Turn

    out = [
        f"Generated from `dialectica.sim.records.EpisodeRecord` (schema version {SCHEMA_VERSION}). "
        f"Fields written only when they hold something: {', '.join(f'`{k}`' for k in OPTIONAL)}.",
        "",
        "| field | JSON type | default | what it is |",
        "|---|---|---|---|",
    ]
    out += [f"| `{n}` | {_text(t)} | `{d}` | {_text(w)} |" for n, t, d, w in record_fields(EpisodeRecord)]
    out += [
        "",
        f"A transcript turn (`Turn`): {_text(' '.join((Turn.__doc__ or '').split()))} Graphs add fields of their own.",
        "",
        "| field | JSON type | default | what it is |",
        "|---|---|---|---|",
    ]
    out += [f"| `{n}` | {_text(t)} | `{d}` | {_text(w)} |" for n, t, d, w in record_fields(Turn)]
    schema = json.dumps(EpisodeRecord.model_json_schema(), indent=2)
    out += ["", '??? note "The JSON schema of a record line"', "", "    ```json"]
    out += [f"    {line}" for line in schema.splitlines()]
    out += ["    ```", ""]
    return "\n".join(out)


GENERATED: dict[str, Callable[[], str]] = {
    "config": config_reference,
    "cli": cli_reference,
    "records": records_reference,
}
