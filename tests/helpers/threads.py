"""Reader threads started together: the one way the tests run IO streams at once.

Streams that must overlap (one reader per file or per band, each QD1) are started before any
is joined, so they compete for the disk as concurrent backends do. A thread's exception would
otherwise vanish with the thread and the test would judge the streams that happened to finish;
here the first one is re-raised in the calling thread once every thread has ended.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def run_at_once(tasks: Sequence[Callable[[], T]]) -> list[T]:
    """Run each task in its own thread, all started before any is joined; their results, in order.

    >>> run_at_once([lambda: 1, lambda: 2])
    [1, 2]
    >>> run_at_once([lambda: 1, lambda: 1 // 0])
    Traceback (most recent call last):
    ZeroDivisionError: integer division or modulo by zero
    """
    results: dict[int, T] = {}
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            results[index] = tasks[index]()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(tasks))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [results[i] for i in range(len(tasks))]  # none raised: every task returned
