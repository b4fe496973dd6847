"""Episodes in flight: up to N at once in threads, their results handed back in submission order.

A surrogate episode spends nearly all its time waiting for a model server, so threads overlap the
waits. Results come back in the order of the inputs, whatever order they finish in, so what a run
writes does not depend on N; at most ``2 N`` results wait to be handed back, so memory does not
grow with the run.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def ordered_map(fn: Callable[[T], R], items: Iterable[T], workers: int) -> Iterator[R]:
    """``map(fn, items)`` with up to ``workers`` calls running at once, yielding in input order.

    With one worker no thread is started: calls run one after another in the caller's thread. An
    exception raised by ``fn`` comes out where its result would have.
    """
    if workers <= 1:
        yield from map(fn, items)
        return
    pending: deque[Future[R]] = deque()
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="episode") as pool:
        try:
            for item in items:
                pending.append(pool.submit(fn, item))
                if len(pending) >= 2 * workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:  # the consumer stopped early (an error, Ctrl-C): queued calls never start
            for future in pending:
                future.cancel()
