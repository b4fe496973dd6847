"""Kindness to shared servers: a cap on requests in flight, a pace, and the waits a 429 asks for."""

from __future__ import annotations

import itertools
import threading
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from dialectica.sim.llm.throttle import MAX_WAIT_S, Throttle, retry_after


def test_no_more_than_in_flight_requests_run_at_once():
    throttle = Throttle(in_flight=3)
    inside, peak, arrived = [], 0, 0
    changed, release = threading.Condition(), threading.Event()

    def request() -> None:
        nonlocal peak, arrived
        with changed:
            arrived += 1
            changed.notify_all()
        with throttle.slot():
            with changed:
                inside.append(1)
                peak = max(peak, len(inside))
                changed.notify_all()
            release.wait()  # held until the test lets go: no timing decides who gets in
            with changed:
                inside.pop()

    threads = [threading.Thread(target=request) for _ in range(12)]
    for t in threads:
        t.start()
    with changed:  # woken by each arrival and entry, not by the clock
        assert changed.wait_for(lambda: arrived == 12 and len(inside) == 3)
        assert len(inside) == 3  # twelve asked, three are in
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
    assert [round(b - a, 6) for a, b in itertools.pairwise(starts)] == [0.5, 0.5, 0.5]


def test_retry_after_reads_seconds_milliseconds_and_dates_and_falls_back_to_backoff():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert retry_after({"Retry-After": "2"}, 0, 0.5) == 2.0
    assert retry_after({"retry-after-ms": "250"}, 0, 0.5) == 0.25
    assert retry_after({"Retry-After": format_datetime(now + timedelta(seconds=7), usegmt=True)}, 0, 0.5, now) == 7.0
    assert retry_after({}, 3, 0.5) == 4.0
    assert retry_after({"Retry-After": "soon"}, 1, 0.5) == 1.0
    assert retry_after({"Retry-After": "86400"}, 0, 0.5) == MAX_WAIT_S
    assert retry_after({"Retry-After": format_datetime(now - timedelta(seconds=5), usegmt=True)}, 0, 0.5, now) == 0.0
