"""The Python blocks of the documentation (docs/**/*.md and the README) run as written, page by page, each page's
blocks in order in one fresh interpreter (a later block may use what an earlier one defined), from a folder where
``examples/`` is the repository's. A block that cannot run here (it needs the local LLM, a finished run, or is a
fragment of your own code) says so in an HTML comment on the line before it:
``<!-- docs-test: skip (needs the local LLM) -->``. And the command-line reference holds every subcommand's --help."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
FENCE = re.compile(r"^(?P<indent>[ \t]*)```python[ \t]*\n(?P<code>.*?)^(?P=indent)```[ \t]*$", re.DOTALL | re.MULTILINE)
SKIP = re.compile(r"<!--\s*docs-test:\s*skip\s*\((?P<why>[^)]+)\)\s*-->\s*$")
AT_LEAST = 4  # blocks that run: getting started, concepts (a judge, a refused scenario), the record schema


def blocks(page: Path) -> list[tuple[int, str, str | None]]:
    """(line, code, why it is skipped or None) of each ```python block of ``page``."""
    text = page.read_text()
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skipped = SKIP.search(before)
        indent = len(match["indent"])
        code = "\n".join(row[indent:] for row in match["code"].splitlines())
        found.append((line, code, skipped["why"] if skipped else None))
    return found


RUNNABLE = {page: [(line, code) for line, code, why in blocks(page) if why is None] for page in PAGES}
RUNNABLE = {page: found for page, found in RUNNABLE.items() if found}
RUNNER = """
import json, sys
sys.path.insert(0, {src!r})
ran = []
for line, code in json.load(open({blocks!r})):
    try:
        exec(compile(code, f"{page}:{{line}}", "exec"), globals())
    except BaseException:
        print(f"the block at {page}:{{line}} raised:", file=sys.stderr)
        raise
    ran.append(line)
print(json.dumps(ran))
"""


def test_every_python_block_runs_or_says_why_not():
    skipped = [(page, line, why) for page in PAGES for line, _, why in blocks(page) if why is not None]
    assert all(why.strip() for _, _, why in skipped)
    assert sum(len(found) for found in RUNNABLE.values()) >= AT_LEAST, "fewer runnable blocks than before"


@pytest.mark.parametrize("page", list(RUNNABLE), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_python_blocks_of_a_page_run(page: Path, tmp_path: Path):
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # the pages' paths are the repository's
    found = RUNNABLE[page]
    (tmp_path / "blocks.json").write_text(json.dumps(found))
    script = RUNNER.format(
        src=str(ROOT / "examples" / "support_bot" / "src"),
        blocks=str(tmp_path / "blocks.json"),
        page=page.relative_to(ROOT),
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [line for line, _ in found]


def test_the_command_line_reference_holds_every_subcommands_help():
    import importlib.util

    from dialectica.sim.cli.main import SUBCOMMANDS

    spec = importlib.util.spec_from_file_location("docs_reference_hook", ROOT / "docs" / "hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = hook
    spec.loader.exec_module(hook)
    reference = hook.cli_reference()
    sections = dict(re.findall(r"^## `dialectica ?(\w*)`\n\n.*?```text\n(.*?)```", reference, re.DOTALL | re.MULTILINE))
    assert set(SUBCOMMANDS) | {""} == set(sections), sorted(sections)
    for name, text in sections.items():
        usage = "usage: dialectica" + ("" if name in ("", "run") else f" {name}")
        assert text.startswith(usage), (name, text[:200])
