"""Episodes in flight: results in input order whatever the finishing order, bounded look-ahead, errors in place."""

from __future__ import annotations

import threading

import pytest

from dialectica.sim.engine.inflight import ordered_map


def test_results_come_back_in_input_order_though_they_finish_out_of_order():
    finished: list[int] = []
    second_done = threading.Event()

    def work(i: int) -> int:
        if i == 0:
            second_done.wait()  # the first item finishes only after the second: out of order for sure
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
    workers = 4
    started: list[int] = []
    lock = threading.Lock()
    look_ahead_full = threading.Event()
    seen_by_the_first: list[int] = []

    def work(i: int) -> int:
        with lock:
            started.append(i)
            if len(started) == 2 * workers:
                look_ahead_full.set()
        if i == 0:  # the first result holds up all the others until twice the workers have started
            look_ahead_full.wait()
            with lock:
                seen_by_the_first.append(len(started))
        return i

    assert list(ordered_map(work, range(100), workers=workers)) == list(range(100))
    assert seen_by_the_first == [2 * workers]  # no ninth item starts before the first is handed back


def test_an_error_comes_out_where_its_result_would_have():
    def work(i: int) -> int:
        if i == 3:
            raise ValueError("episode 3")
        return i

    results = ordered_map(work, range(10), workers=4)
    assert [next(results) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="episode 3"):
        next(results)
