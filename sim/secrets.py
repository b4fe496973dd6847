"""Secrets scrubbed by value, wherever text leaves the process: files, MLflow, logs, the console.

One process-wide registry holds the secret values the process knows of; :func:`collect` fills it from
the config and the environment, and :func:`scrub` replaces every registered value, and the credentials
of any URL (``scheme://user:pass@`` -> ``scheme://***@``), with ``***``. Each sink scrubs once, where it
writes; :func:`install_logging` scrubs every log record as it is made, whichever handler writes it.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import re
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

MASK = "***"
MIN_LENGTH = 6  # shorter values are not registered: scrubbing them would mangle ordinary text
# A key or environment variable whose name looks like this holds a secret (``max_tokens`` does not).
SECRET_NAME = re.compile(r"(api[_-]?key|token(?!s|iz)|password|secret|credential)", re.IGNORECASE)
_URL_CREDENTIALS = re.compile(r"(?<=://)([^/@\s]+)@")

_values: set[str] = set()
_pattern: re.Pattern[str] | None = None
_lock = threading.Lock()


def register(value: Any) -> None:
    """Adds a secret value (a number is registered as its text); values shorter than ``MIN_LENGTH`` are ignored."""
    global _pattern
    if value is None or isinstance(value, (bool, dict, list, tuple)):
        return
    text = str(value)
    if len(text) < MIN_LENGTH:
        return
    with _lock:
        if text not in _values:
            _values.add(text)
            # longest first, so that ``user:pass`` goes whole rather than leaving ``user:``
            _pattern = re.compile("|".join(re.escape(v) for v in sorted(_values, key=len, reverse=True)))


def clear() -> None:
    """Forgets every registered value (for tests)."""
    global _pattern
    with _lock:
        _values.clear()
        _pattern = None


def scrub_url(text: str) -> str:
    """``http://user:pass@host/v1`` -> ``http://***@host/v1``."""
    return _URL_CREDENTIALS.sub(f"{MASK}@", text) if "@" in text else text


def scrub(text: str) -> str:
    """``text`` with every registered secret and every URL's credentials replaced by ``***``."""
    pattern = _pattern
    if pattern is not None:
        text = pattern.sub(MASK, text)
    return scrub_url(text)


def scrub_tree(obj: Any) -> Any:
    """A copy of ``obj`` with every string in it (mapping keys too) scrubbed; other values as they are."""
    if isinstance(obj, str):
        return scrub(obj)
    if isinstance(obj, Mapping):
        return {scrub_tree(k): scrub_tree(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [scrub_tree(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(scrub_tree(v) for v in obj)
    return obj


def scrub_exception(exc: BaseException) -> BaseException:
    """Scrubs the string arguments (and ``message``) of ``exc`` and of the exceptions it chains to, in place,
    so that its traceback names no secret; returns ``exc`` for ``raise``."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(scrub(a) if isinstance(a, str) else a for a in current.args)
        if isinstance(getattr(current, "__notes__", None), list):
            current.__notes__ = [scrub(n) if isinstance(n, str) else n for n in current.__notes__]
        if isinstance(getattr(current, "message", None), str):
            with contextlib.suppress(AttributeError):  # a read-only property
                current.message = scrub(current.message)  # type: ignore[attr-defined]
        current = current.__cause__ or current.__context__
    return exc


def _register_url_credentials(text: str) -> None:
    for userinfo in _URL_CREDENTIALS.findall(text):
        plain = unquote(userinfo)
        for value in (userinfo, plain, userinfo.partition(":")[2], plain.partition(":")[2]):
            register(value)
        # an HTTP client sends URL credentials as ``Authorization: Basic base64(user:pass)``
        register(base64.b64encode(plain.encode()).decode())


def _walk(node: Any, environ: Mapping[str, str], secret: bool) -> None:
    if isinstance(node, Mapping):
        for key, value in node.items():
            name = str(key)
            if name.endswith("_env") and SECRET_NAME.search(name) and isinstance(value, str):  # llm.api_key_env
                register(environ.get(value))
            else:
                _walk(value, environ, secret or bool(SECRET_NAME.search(name)))
    elif isinstance(node, (list, tuple)):
        for value in node:
            _walk(value, environ, secret)
    elif secret:
        register(node)
    elif isinstance(node, str):
        _register_url_credentials(node)


def collect(config: Any, environ: Mapping[str, str]) -> None:
    """Registers the secrets of a run: the values of environment variables whose name looks secret
    (``OPENAI_API_KEY``, ``HF_TOKEN``, ``MLFLOW_TRACKING_PASSWORD``), of the variables that config keys
    ending in ``_env`` name (``llm.api_key_env``), of config keys whose name looks secret, and the
    credentials of every URL in the config (``llm.base_url``, ``tracking.uri``, overrides)."""
    for name, value in environ.items():
        if SECRET_NAME.search(name):
            register(value)
    _walk(config, environ, False)


def _scrubbing_factory(make: Any) -> Any:
    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record: logging.LogRecord = make(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string is logging's own error to report
            return record
        record.msg, record.args = scrub(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = scrub(logging.Formatter().formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = scrub(record.stack_info)
        return record

    factory.scrubs_secrets = True  # type: ignore[attr-defined]
    return factory


def install_logging() -> None:
    """Scrubs every log record as it is made, whatever logger or handler (Hydra's file and console ones,
    configured before or after this call) writes it. Idempotent."""
    make = logging.getLogRecordFactory()
    if not getattr(make, "scrubs_secrets", False):
        logging.setLogRecordFactory(_scrubbing_factory(make))
