"""Kindness to a shared server: a cap on requests in flight, a pace in requests per minute, and the wait
that a 429 or 503 reply asks for.

One :class:`Throttle` per server URL and process, so every role and episode of a run shares it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

MAX_WAIT_S = 60.0


class Throttle:
    """At most ``in_flight`` requests at once; with ``per_minute`` > 0, request starts spaced ``60 / per_minute`` s."""

    def __init__(
        self,
        in_flight: int,
        per_minute: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._slots = threading.BoundedSemaphore(in_flight)
        self._interval = 60.0 / per_minute if per_minute > 0 else 0.0
        self._next_start = 0.0
        self._lock = threading.Lock()
        self._clock, self._sleep = clock, sleep

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Holds one of the slots for the duration of a request, started no sooner than the pace allows."""
        with self._slots:
            if self._interval:
                with self._lock:
                    now = self._clock()
                    start = max(now, self._next_start)
                    self._next_start = start + self._interval
                if start > now:
                    self._sleep(start - now)
            yield


def retry_after(headers: Mapping[str, str], attempt: int, backoff_s: float, now: datetime | None = None) -> float:
    """Seconds to wait after a 429 or 503: the server's ``retry-after-ms`` or ``Retry-After`` (seconds or an
    HTTP date) when it sends one, else ``backoff_s * 2^attempt``; never more than a minute."""
    lowered = {k.lower(): v for k, v in headers.items()}
    wait = backoff_s * 2**attempt
    try:
        if "retry-after-ms" in lowered:
            wait = float(lowered["retry-after-ms"]) / 1000
        elif "retry-after" in lowered:
            value = lowered["retry-after"].strip()
            if value.replace(".", "", 1).isdigit():
                wait = float(value)
            else:
                wait = (parsedate_to_datetime(value) - (now or datetime.now(UTC))).total_seconds()
    except (ValueError, TypeError):
        pass  # an unreadable header: the exponential backoff stands
    return float(min(max(wait, 0.0), MAX_WAIT_S))
