"""``dialectica report SWEEP``: runs the sweep notebook (``sweep.ipynb`` beside this file) for one sweep into a
self-contained HTML page (``<sweep>/report.html`` unless ``--out``), and logs it to the sweep's MLflow parent
run. SWEEP is a sweep directory or its parent run id (with ``--tracking-uri``)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from dialectica.sim.sweep_data import Sweep, SweepError, load_sweep

NOTEBOOK = Path(__file__).with_name("sweep.ipynb")
_REMOTE_SCRIPT = re.compile(r'<script src="https?://[^"]*">\s*</script>')


@contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    """The notebook's kernel inherits this process's environment: its parameters travel there."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def render(sweep: Sweep, out: Path) -> Path:
    """Executes the notebook for ``sweep`` and writes it, outputs and figures inlined, as HTML to ``out``."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    params = {"DIALECTICA_SWEEP": str(sweep.directory.resolve()), "DIALECTICA_TRACKING_URI": sweep.tracking_uri or ""}
    with _environ(params | {"MPLBACKEND": "module://matplotlib_inline.backend_inline"}):
        NotebookClient(notebook, kernel_name="python3", resources={"metadata": {"path": str(sweep.directory)}}).execute()
    html, _ = HTMLExporter(embed_images=True).from_notebook_node(notebook)
    html = _REMOTE_SCRIPT.sub("", html)  # require.js and MathJax from a CDN: the page needs neither offline
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(html)
    partial.replace(out)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dialectica report", description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", help="a sweep directory (hydra.sweep.dir), or its MLflow parent run id")
    parser.add_argument("--tracking-uri", help="the MLflow store holding the parent run (for a run id)")
    parser.add_argument("--out", type=Path, help="the HTML file (default: <sweep>/report.html)")
    args = parser.parse_args(argv)
    try:
        sweep = load_sweep(args.sweep, args.tracking_uri)
    except SweepError as exc:
        print(f"dialectica: error: {exc}", file=sys.stderr)
        return 2
    out = render(sweep, args.out or sweep.directory / "report.html")
    print(f"report: {out}")
    if sweep.parent_run_id and sweep.tracking_uri:
        from mlflow.tracking import MlflowClient

        from dialectica.sim.store import RetryingClient

        RetryingClient(MlflowClient(sweep.tracking_uri)).log_artifact(sweep.parent_run_id, str(out))
        print(f"logged to MLflow run {sweep.parent_run_id} ({sweep.tracking_uri})")
    return 0
