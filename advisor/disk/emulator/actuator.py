"""The emulated disk's single actuator: a queue served in model order on a virtual clock.

Requests arrive from many FUSE threads at once. Each is stamped with the virtual time at
which it arrived; they are served one at a time, in the order the timing model chooses
(SPTF with a margin when more than one waits), the model says when each service finishes,
and each caller's reply is held back until real time reaches that finish. A request that
finds the head idle and the queue empty is scheduled by its own thread; otherwise the
actuator thread decides when the head frees up. Virtual time is real monotonic time
multiplied by ``scale``, so ``scale=10`` runs the same disk ten times faster.

Why decisions use virtual timestamps and not "now": the actuator thread wakes up late by
tens of microseconds (Python, the GIL, timer slack). If it used the wake-up time, every
request would be charged that jitter, ten times over at scale 10. Instead a request starts
at ``max(head free, its arrival)`` and only requests that had arrived by then compete, so
the served timeline is the model's own, whatever the thread's punctuality.

The path from an application through the kernel, loop and FUSE into this process and back
costs real time that no disk would spend (``inbound`` and ``outbound``, measured at start
by :mod:`advisor.disk.emulator.calibrate`). Arrivals are back-dated by the inbound part
and replies released early by the outbound part, never before their data has moved, so
what the application sees is the model's latency.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

OPS = ("read", "write", "flush")


class Timing(Protocol):
    """What the actuator needs from a disk model (``advisor.disk.mechanism.Mechanism``)."""

    def service(self, op: str, offset_bytes: int, length_bytes: int, start_s: float) -> float:
        """Finish time (virtual seconds) of one request started at *start_s*."""
        ...

    def choose(self, pending: Sequence[Any], now_s: float) -> int:
        """Index into *pending* of the request to serve next at *now_s*."""
        ...


def arrival_taken_s(inbound: tuple[float, float], op: str, length_bytes: int) -> float:
    """Real seconds an arrival is back-dated by the *inbound* path (``base, per_byte``): the per-byte part is
    paid on the data a request carries in, a write's."""
    return inbound[0] + inbound[1] * (length_bytes if op == "write" else 0)


def reply_taken_s(outbound: tuple[float, float], op: str, length_bytes: int) -> float:
    """Real seconds a reply is sent early by the *outbound* path: the per-byte part is paid on the data a
    reply carries back, a read's."""
    return outbound[0] + outbound[1] * (length_bytes if op == "read" else 0)


@dataclass(frozen=True, slots=True)
class QueuedIO:
    """One request as the timing model sees it (same fields as the model's ``Request``)."""

    op: str
    offset_bytes: int
    length_bytes: int
    submitted_s: float
    tag: int


@dataclass(slots=True)
class _Waiter:
    io: QueuedIO
    scheduled: threading.Event = field(default_factory=threading.Event)
    finish_s: float = 0.0
    release_at: float = 0.0  # real monotonic time at which the caller may reply


@dataclass(slots=True)
class ActuatorStats:
    """Counters of what the actuator served; plain numbers so they serialise as JSON."""

    served: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OPS, 0))
    bytes: dict[str, int] = field(default_factory=lambda: {"read": 0, "write": 0})
    model_busy_s: float = 0.0  # virtual seconds the head spent serving
    model_latency_s: float = 0.0  # sum over requests of finish - arrival (virtual)
    model_wait_s: float = 0.0  # sum over requests of start - arrival (virtual): queueing for the head
    wake_late_s: float = 0.0  # sum of how late (real, negative: early) sleepers woke up
    max_queue_depth: int = 0
    reordered: int = 0  # times the model chose another request than the oldest
    late_replies: int = 0  # replies released more than 1 ms (real) after their time
    late_by_s: float = 0.0  # total real lateness of those replies

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready copy."""
        return {
            "served": dict(self.served),
            "bytes": dict(self.bytes),
            "model_busy_s": self.model_busy_s,
            "model_latency_s": self.model_latency_s,
            "model_wait_s": self.model_wait_s,
            "wake_late_s": self.wake_late_s,
            "max_queue_depth": self.max_queue_depth,
            "reordered": self.reordered,
            "late_replies": self.late_replies,
            "late_by_s": self.late_by_s,
        }


class Actuator:
    """Serialise requests through one timing model on a scaled virtual clock.

    ``submit`` blocks the calling thread until the request is scheduled and returns its
    virtual finish; the caller moves the data, then ``wait_release`` holds the reply back
    until that finish. A request that finds the head idle and nobody queued is scheduled
    by the calling thread itself (a disk would start it at once too); otherwise the
    actuator thread decides when the head frees up.
    """

    LATE_S = 1e-3
    MAX_LEAD_S = 1e-3

    def __init__(self, timing: Timing, *, scale: float = 1.0) -> None:
        if scale <= 0:
            raise ValueError("scale must be positive")
        self.timing = timing
        self.scale = float(scale)
        # Real seconds the path adds before a request reaches us (inbound) and after our
        # reply (outbound), as a + b·bytes: arrivals are back-dated, replies sent early.
        self.inbound = (0.0, 0.0)
        self.outbound = (0.0, 0.0)
        self.passthrough = False  # True while calibrating: no model time at all ...
        self.hold_s = 0.0  # ... but each request held this long (real s), as a disk would
        self.stats = ActuatorStats()
        self._t0 = time.monotonic()
        self._head_free_s = 0.0
        self._queue: list[_Waiter] = []
        self._cond = threading.Condition()
        self._next_tag = 0
        self._stopped = False
        self._wake_lead = 1e-4
        self._thread = threading.Thread(target=self._run, name="emulator-actuator", daemon=True)
        self._thread.start()

    # -- clock ---------------------------------------------------------------------------
    def now_s(self) -> float:
        """Virtual time: real seconds since start times ``scale``."""
        return (time.monotonic() - self._t0) * self.scale

    def _real_at(self, virtual_s: float) -> float:
        return self._t0 + virtual_s / self.scale

    @property
    def path_overhead_s(self) -> float:
        """Round-trip path overhead of a 4 KiB request (real seconds), for reports."""
        return self.inbound[0] + self.outbound[0] + (self.inbound[1] + self.outbound[1]) * 4096

    # -- callers (FUSE threads) ----------------------------------------------------------
    def submit(self, op: str, offset_bytes: int, length_bytes: int, arrived_real: float | None = None) -> float:
        """Queue one request and wait until it is scheduled; returns its virtual finish.

        *arrived_real* is the monotonic time the request reached the server (default now).
        """
        return self.submit_timed(op, offset_bytes, length_bytes, arrived_real)[1]

    def submit_timed(self, op: str, offset_bytes: int, length_bytes: int,
                     arrived_real: float | None = None) -> tuple[float, float]:
        """:meth:`submit`, returning (virtual arrival, virtual finish) of the request.

        ``finish - arrival`` is the time the modelled disk took for it, queueing for the
        head included: what a trace needs to tell the disk's time from the host's.
        """
        if op not in OPS:
            raise ValueError(f"unknown op {op!r}")
        inbound = 0.0 if self.passthrough else arrival_taken_s(self.inbound, op, length_bytes)
        with self._cond:
            if self._stopped:
                raise RuntimeError("actuator stopped")
            tag = self._next_tag
            self._next_tag += 1
            now_real = time.monotonic() if arrived_real is None else arrived_real
            arrived = (now_real - inbound - self._t0) * self.scale
            waiter = _Waiter(QueuedIO(op, offset_bytes, length_bytes, arrived, tag))
            self._queue.append(waiter)
            depth = len(self._queue)
            self.stats.max_queue_depth = max(self.stats.max_queue_depth, depth)
            if depth == 1 and self._head_free_s <= arrived:
                self._queue.clear()
                self._serve(waiter, arrived)  # idle head, empty queue: start at once
            else:
                self._cond.notify()
        waiter.scheduled.wait()
        return waiter.io.submitted_s, waiter.finish_s

    def wait_release(self, op: str, length_bytes: int, finish_s: float) -> None:
        """Hold the reply for a request finishing at *finish_s* until it may go out."""
        outbound = 0.0 if self.passthrough else reply_taken_s(self.outbound, op, length_bytes)
        release_at = self._real_at(finish_s) - outbound
        now = self._sleep_until(release_at)
        if now - release_at > self.LATE_S:
            with self._cond:
                self.stats.late_replies += 1
                self.stats.late_by_s += now - release_at

    def _sleep_until(self, deadline: float) -> float:
        """Sleep to *deadline* (monotonic), punctually; returns the time it woke.

        Sleeping threads wake up late (scheduler, GIL, a busy machine): sleep until
        ``_wake_lead`` before the deadline, a running mean of that lateness, so that on
        average the wake-up is on time. (Spinning the last stretch instead would be
        exact, but a spinning real-time thread steals the CPU from the very reader and
        kernel threads whose requests it is timing.)
        """
        now = time.monotonic()
        if deadline - now > self._wake_lead:
            target = deadline - self._wake_lead
            time.sleep(target - now)
            now = time.monotonic()
            self._wake_lead = min(self.MAX_LEAD_S, 0.9 * self._wake_lead + 0.1 * (now - target))
            self.stats.wake_late_s += now - deadline
        return now

    def stop(self) -> None:
        """Stop the actuator thread; queued callers are released at once."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        self._thread.join(timeout=5)
        with self._cond:
            for waiter in self._queue:
                waiter.finish_s = self.now_s()
                waiter.scheduled.set()
            self._queue.clear()

    # -- the actuator thread -------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    return
                decide_s = max(self._head_free_s, min(w.io.submitted_s for w in self._queue))
            # Wait (outside the lock) until the head is free in real time, so every request
            # that arrives before then can take part in the choice.
            self._sleep_until(self._real_at(decide_s))
            with self._cond:
                if not self._queue:
                    continue
                decide_s = max(self._head_free_s, min(w.io.submitted_s for w in self._queue))
                waiter = self._pick(decide_s)
                self._queue.remove(waiter)
                self._serve(waiter, decide_s)

    def _pick(self, decide_s: float) -> _Waiter:
        """The request to serve at *decide_s*, honouring flushes as barriers."""
        arrived = sorted((w for w in self._queue if w.io.submitted_s <= decide_s), key=lambda w: w.io.tag)
        candidates: list[_Waiter] = []
        for waiter in arrived:
            if waiter.io.op == "flush":
                # A flush waits for everything queued before it and is served alone.
                if not candidates:
                    candidates = [waiter]
                break
            candidates.append(waiter)
        if len(candidates) == 1 or self.passthrough:
            return candidates[0]
        index = self.timing.choose([w.io for w in candidates], decide_s)
        if index != 0:
            self.stats.reordered += 1
        return candidates[index]

    def _serve(self, waiter: _Waiter, start_s: float) -> None:
        """Schedule *waiter* at *start_s* (caller holds the lock)."""
        io = waiter.io
        if self.passthrough:
            finish_s = start_s + self.hold_s * self.scale
        else:
            finish_s = max(start_s, self.timing.service(io.op, io.offset_bytes, io.length_bytes, start_s))
        self._head_free_s = finish_s
        stats = self.stats
        stats.served[io.op] += 1
        if io.op in stats.bytes:
            stats.bytes[io.op] += io.length_bytes
        stats.model_busy_s += finish_s - start_s
        stats.model_latency_s += finish_s - io.submitted_s
        stats.model_wait_s += start_s - io.submitted_s
        waiter.finish_s = finish_s
        waiter.scheduled.set()
