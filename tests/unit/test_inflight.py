"""Episodes in flight: results in input order whatever the finishing order, bounded look-ahead, errors in place."""

from __future__ import annotations

import random
import threading
import time

import pytest

from dialectica.sim.inflight import ordered_map


def test_results_come_back_in_input_order_though_they_finish_out_of_order():
    delays = random.Random(3).sample([i / 1000 for i in range(40)], 40)
    finished: list[int] = []
    second_done = threading.Event()

    def work(i: int) -> int:
        if i == 0:
            second_done.wait(10)  # the first item finishes only after the second: out of order for sure
        time.sleep(delays[i])
        finished.append(i)
        if i == 1:
            second_done.set()
        return i * i

    assert list(ordered_map(work, range(40), workers=8)) == [i * i for i in range(40)]
    assert finished.index(1) < finished.index(0)


def test_one_worker_runs_in_the_callers_thread():
    caller = threading.get_ident()
    assert set(ordered_map(lambda _: threading.get_ident(), range(5), workers=1)) == {caller}


def test_at_most_twice_the_workers_wait_to_be_handed_back():
    started: list[int] = []
    gate = threading.Event()

    def work(i: int) -> int:
        started.append(i)
        if i == 0:
            gate.wait(5)  # the first result holds up all the others
        return i

    results = ordered_map(work, range(100), workers=4)
    threading.Timer(0.3, gate.set).start()
    assert next(results) == 0
    assert len(started) <= 2 * 4 + 1
    assert list(results) == list(range(1, 100))


def test_an_error_comes_out_where_its_result_would_have():
    def work(i: int) -> int:
        if i == 3:
            raise ValueError("episode 3")
        return i

    results = ordered_map(work, range(10), workers=4)
    assert [next(results) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="episode 3"):
        next(results)
