"""``dialectica report SWEEP``: runs the sweep notebook (``sweep.ipynb`` beside this file) for one sweep into a
self-contained HTML page (``<sweep>/report.html`` unless ``--out``), and logs it to the sweep's MLflow parent
run. SWEEP is a sweep directory or its parent run id (with ``--tracking-uri``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from tempfile import TemporaryDirectory

from dialectica.sim.tracking.sweep_data import Sweep

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
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    params = {"DIALECTICA_SWEEP": str(sweep.directory.resolve()), "DIALECTICA_TRACKING_URI": sweep.tracking_uri or ""}
    with _environ(params | {"MPLBACKEND": "module://matplotlib_inline.backend_inline"}), TemporaryDirectory() as sockets:
        # local sockets, not TCP: nothing listens on a port, and the kernel has no unencrypted-TCP warning to print
        kernel = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(sockets) / "kernel"))
        try:
            NotebookClient(notebook, km=kernel, resources={"metadata": {"path": str(sweep.directory)}}).execute()
        finally:
            if kernel.has_kernel:
                kernel.shutdown_kernel()
    html, _ = HTMLExporter(embed_images=True).from_notebook_node(notebook)
    html = _REMOTE_SCRIPT.sub("", html)  # require.js and MathJax from a CDN: the page needs neither offline
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(html)
    partial.replace(out)
    return out
