"""Kindness to shared servers: a cap on requests in flight, a pace, and the waits a 429 asks for."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from dialectica.sim.llm.throttle import MAX_WAIT_S, Throttle, retry_after


def test_no_more_than_in_flight_requests_run_at_once():
    throttle = Throttle(in_flight=3)
    inside, peak = [], 0
    lock, release = threading.Lock(), threading.Event()

    def request() -> None:
        nonlocal peak
        with throttle.slot():
            with lock:
                inside.append(1)
                peak = max(peak, len(inside))
            release.wait(10)  # held until the test lets go: no timing decides who gets in
            with lock:
                inside.pop()

    threads = [threading.Thread(target=request) for _ in range(12)]
    for t in threads:
        t.start()
    for _ in range(1000):  # until three are inside (bounded polling)
        if len(inside) == 3:
            break
        time.sleep(0.005)
    time.sleep(0.05)  # the other nine have had a chance to push in
    assert len(inside) == 3
    release.set()
    for t in threads:
        t.join()
    assert peak == 3 and not inside


def test_requests_per_minute_spaces_the_starts():
    now = [100.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    throttle = Throttle(in_flight=8, per_minute=120, clock=lambda: now[0], sleep=sleep)
    starts = []
    for _ in range(4):
        with throttle.slot():
            starts.append(now[0])
    assert [round(b - a, 6) for a, b in zip(starts, starts[1:], strict=False)] == [0.5, 0.5, 0.5]


def test_retry_after_reads_seconds_milliseconds_and_dates_and_falls_back_to_backoff():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert retry_after({"Retry-After": "2"}, 0, 0.5) == 2.0
    assert retry_after({"retry-after-ms": "250"}, 0, 0.5) == 0.25
    assert retry_after({"Retry-After": format_datetime(now + timedelta(seconds=7), usegmt=True)}, 0, 0.5, now) == 7.0
    assert retry_after({}, 3, 0.5) == 4.0
    assert retry_after({"Retry-After": "soon"}, 1, 0.5) == 1.0
    assert retry_after({"Retry-After": "86400"}, 0, 0.5) == MAX_WAIT_S
    assert retry_after({"Retry-After": format_datetime(now - timedelta(seconds=5), usegmt=True)}, 0, 0.5, now) == 0.0
