"""SIGTERM and SIGHUP unwind like Ctrl-C, so what a command holds is released however it is stopped.

A command that holds something outside its own process (a scratch file, an emulated disk,
a tracefs instance with its kernel buffers) must release it when a service manager, a
``timeout`` or a shell's ``kill`` stops it, not only on Ctrl-C: Python's default SIGTERM
ends the process without running a single ``finally``. :func:`interruptible` turns the three
into one KeyboardInterrupt (:class:`Interrupted`, which says which); once unwinding started,
further signals are noted and ignored so a second Ctrl-C cannot cut the cleanup short.
:func:`interrupted_code` gives the exit code a shell reports for the first of them.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

from advisor.errors import ExitCode

HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """The first of the handled signals arrived: *signum* gives the exit code a shell reports."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signal.Signals(signum).name}")
        self.signum = signum


class Guard:
    """Signal handler state: the first signal interrupts, later ones only count."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self.unwinding = False

    def handle(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)
        if self.unwinding:
            return
        self.unwinding = True
        raise Interrupted(signum)


@contextlib.contextmanager
def interruptible() -> Iterator[Guard]:
    """Turn SIGINT/SIGTERM/SIGHUP into one KeyboardInterrupt; restore the old handlers after.

    Only the main thread can install handlers; elsewhere this is a no-op guard.
    """
    guard = Guard()
    previous: dict[int, object] = {}
    with contextlib.suppress(ValueError):  # not the main thread
        for handled in HANDLED_SIGNALS:
            previous[int(handled)] = signal.signal(handled, guard.handle)
    try:
        yield guard
    finally:
        guard.unwinding = True  # the caller's cleanup has run by now; stay quiet until restored
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]


def interrupted_code(received: list[int]) -> int:
    """130 for Ctrl-C; 128 + the signal number for SIGTERM (143) and SIGHUP (129), as a shell reports."""
    first = received[0] if received else int(signal.SIGINT)
    return int(ExitCode.INTERRUPTED) if first == signal.SIGINT else 128 + first
