"""The actuator on its own (no FUSE): one head, a virtual clock, flushes as barriers, SPTF."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from advisor.disk.emulator.actuator import Actuator
from advisor.disk.emulator.timing import ConstantTiming, sized_model
from advisor.disk.mechanism import Mechanism
from advisor.disk.presets import get_model


class RecordingTiming(ConstantTiming):
    """Constant service time that remembers the order and start times it served."""

    def __init__(self, latency_ms: float) -> None:
        super().__init__(latency_ms, latency_ms)
        self.served: list[tuple[str, int, float]] = []

    def service(self, op: str, offset_bytes: int, length_bytes: int, start_s: float) -> float:
        self.served.append((op, offset_bytes, start_s))
        return super().service(op, offset_bytes, length_bytes, start_s)


def _submit_all(actuator: Actuator, requests: Sequence[tuple[str, int]], gap_s: float = 0.0) -> list[float]:
    finishes: list[float] = [0.0] * len(requests)

    def one(index: int, op: str, offset: int) -> None:
        finish = actuator.submit(op, offset, 4096)
        actuator.wait_release(op, 4096, finish)
        finishes[index] = finish

    threads = []
    for index, (op, offset) in enumerate(requests):
        thread = threading.Thread(target=one, args=(index, op, offset))
        thread.start()
        threads.append(thread)
        time.sleep(gap_s)
    for thread in threads:
        thread.join(timeout=30)
    return finishes


def test_one_head_serves_one_request_at_a_time_on_the_virtual_clock() -> None:
    timing = RecordingTiming(latency_ms=10.0)
    actuator = Actuator(timing, scale=20.0)
    try:
        started = time.monotonic()
        finishes = _submit_all(actuator, [("read", i * 4096) for i in range(8)])
        elapsed = time.monotonic() - started
    finally:
        actuator.stop()
    starts = sorted(start for _, _, start in timing.served)
    assert all(b - a >= 0.010 - 1e-9 for a, b in zip(starts, starts[1:], strict=False))  # never overlapping
    assert max(finishes) - min(starts) >= 0.080 - 1e-9
    assert elapsed >= 0.080 / 20.0 * 0.9  # eight 10 ms services at scale 20 take 4 ms of real time
    assert actuator.stats.served["read"] == 8


def test_a_flush_waits_for_the_writes_queued_before_it() -> None:
    timing = RecordingTiming(latency_ms=20.0)
    # real time: the queue must form while the first write holds the head, even when a busy
    # machine takes milliseconds to start each submitting thread
    actuator = Actuator(timing, scale=1.0)
    try:
        # the first write occupies the head; the rest queue up behind it in this order
        _submit_all(actuator, [("write", 0), ("write", 8192), ("flush", 0), ("write", 16384)], gap_s=0.0005)
    finally:
        actuator.stop()
    order = [(op, offset) for op, offset, _ in timing.served]
    assert order.index(("flush", 0)) > order.index(("write", 8192))
    assert order.index(("flush", 0)) < order.index(("write", 16384))


class Reordering:
    """A mechanism-backed timing whose choices are recorded."""

    def __init__(self) -> None:
        self.mechanism = Mechanism(sized_model(get_model("class-7200-desktop"), 1 << 30), write_cache="off")
        self.choices: list[int] = []

    def service(self, op: str, offset_bytes: int, length_bytes: int, start_s: float) -> float:
        return self.mechanism.service(op, offset_bytes, length_bytes, start_s)

    def choose(self, pending: Sequence[Any], now_s: float) -> int:
        index = self.mechanism.choose(pending, now_s)
        self.choices.append(index)
        return index


def test_queued_requests_go_to_the_models_choice() -> None:
    timing = Reordering()
    actuator = Actuator(timing, scale=1.0)  # real time: a read holds the head for ~10 ms while the rest queue
    try:
        far_and_near = [("read", (1 << 30) - 4096 * (i + 1)) if i % 2 else ("read", i * 4096) for i in range(12)]
        _submit_all(actuator, far_and_near)
    finally:
        actuator.stop()
    assert actuator.stats.served["read"] == 12
    assert timing.choices, "requests queued behind a busy head must be chosen by the model"
    assert actuator.stats.reordered == sum(1 for index in timing.choices if index != 0)
    assert actuator.stats.reordered > 0
