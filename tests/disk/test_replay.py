"""The replay of a request stream: closed loops per process, the drive's reordering, moves."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.disk.replay import Stream, causes, located, max_in_flight, replay
from advisor.disk.simulate import StreamSpec, simulate
from tests.helpers.workloads import model

DISK = 500 * 10**9


def stream(issue: list[float], complete: list[float], process: list[int], offsets: list[int] | None = None) -> Stream:
    count = len(issue)
    return Stream(np.array(offsets or [i * 8192 for i in range(count)], dtype=np.int64),
                  np.full(count, 8192, dtype=np.int64), np.zeros(count, dtype=np.int64),
                  np.array(process, dtype=np.int64), np.array(issue), np.array(complete))


def test_a_request_follows_what_its_process_saw_complete() -> None:
    # process 0: QD1 (0 -> 1 -> 2); process 1: two in flight at once, then one after both
    # (reads 16 KiB apart: none continues another process's read, see test_replay_flush.py)
    s = stream([0.0, 0.0, 0.011, 0.012, 0.013, 0.030], [0.010, 0.020, 0.021, 0.025, 0.026, 0.040], [0, 1, 0, 1, 0, 1],
               [i * 16384 for i in range(6)])
    cause, previous = causes(s)
    assert cause.tolist() == [-1, -1, 0, -1, 0, 3]  # request 4 follows 0 (2 still in flight)
    assert previous.tolist() == [-1, -1, -1, 1, 2, -1]  # issued while the one before was in flight
    assert max_in_flight(s.issue_s, s.complete_s) == 4


def random_reads(count: int, lo: float, hi: float, processes: int, think_s: float, seed: int = 3) -> Stream:
    """A closed-loop stream as a database would send it (measured times: a QD-free guess, overwritten by the replay)."""
    rng = np.random.default_rng(seed)
    offsets = (rng.integers(int(lo * DISK), int(hi * DISK), count) // 8192 * 8192).astype(np.int64)
    issue, complete, process = [], [], []
    clock = [0.0] * processes
    for i in range(count):
        p = i % processes
        issue.append(clock[p])
        complete.append(clock[p] + 0.012)
        clock[p] += 0.012 + think_s
        process.append(p)
    return Stream(offsets, np.full(count, 8192, dtype=np.int64), np.zeros(count, dtype=np.int64),
                  np.array(process, dtype=np.int64), np.array(issue), np.array(complete))


def test_one_process_replays_as_the_simulator_serves_random_reads() -> None:
    drive = model(DISK)
    replayed = replay(drive, random_reads(3000, 0.0, 1.0, 1, 0.0), DISK)
    simulated = simulate(drive, [StreamSpec("randread", (0.0, 1.0), 8192, qd=1)], ios=3000, seed=3)
    assert replayed.queue_depth == 1
    assert abs(replayed.service_s.mean() * 1000 / simulated.mean_ms - 1) < 0.05


def test_the_drive_reorders_what_is_in_flight() -> None:
    drive = model(DISK)
    alone = replay(drive, random_reads(3000, 0.0, 1.0, 1, 0.0), DISK)
    eight = replay(drive, random_reads(3000, 0.0, 1.0, 8, 0.0), DISK)
    assert eight.queue_depth == 8
    # SPTF over 8 requests serves each in less time than one at a time (throughput), though each waits longer
    assert eight.span_s < 0.8 * alone.span_s
    assert eight.service_s.mean() > alone.service_s.mean()


def test_moving_the_requests_outward_shortens_them_and_keeps_the_think_time() -> None:
    drive = model(DISK)
    inner = random_reads(2000, 0.80, 0.85, 2, 0.005)
    outer = inner.moved(inner.offset_bytes - int(0.80 * DISK))
    before, after = replay(drive, inner, DISK), replay(drive, outer, DISK)
    assert after.service_s.mean() < 0.97 * before.service_s.mean()
    assert after.span_s < before.span_s
    # each process waits its 5 ms between a completion and its next issue in both
    gaps = before.issue_s[2:] - before.complete_s[:-2]
    assert np.median(gaps) >= 0.005 - 1e-9


def test_the_seed_sets_only_the_phase_and_extents_located_once_replay_the_same() -> None:
    """A replay under a named phase is the replay whose seed drew that phase, and the extents
    located once for several phases (the engine's phased replay) change no time."""
    import random

    from tests.helpers.model_trace import phase_bound_stream
    from tests.helpers.workloads import DISK_BYTES

    stream = phase_bound_stream()
    drive = model(DISK_BYTES)
    seeded = replay(drive, stream, DISK_BYTES, seed=3)
    named = replay(drive, stream, DISK_BYTES, phase=random.Random(3).random())
    assert np.array_equal(seeded.complete_s, named.complete_s)
    shared = located(drive, stream, DISK_BYTES)
    for phase in (0.0, 0.5):
        plain = replay(drive, stream, DISK_BYTES, phase=phase)
        primed = replay(drive, stream, DISK_BYTES, phase=phase, located=shared)
        assert np.array_equal(plain.complete_s, primed.complete_s)
    assert not np.array_equal(replay(drive, stream, DISK_BYTES, phase=0.0).complete_s,
                              replay(drive, stream, DISK_BYTES, phase=0.5).complete_s)


def test_a_path_to_the_drive_lengthens_each_request_by_its_time_both_ways() -> None:
    # a cache flush on an idle drive with nothing to destage costs the same whenever it arrives: behind a path of
    # 2 ms each flush takes 2 ms longer at the block layer, and the next one goes out its think time after that
    drive = model(DISK)
    flushes = Stream(np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64), np.full(3, 2, dtype=np.int64),
                     np.zeros(3, dtype=np.int64), np.array([0.0, 0.010, 0.020]), np.array([0.001, 0.011, 0.021]))
    direct, behind = replay(drive, flushes, DISK), replay(drive, flushes, DISK, path_s=0.002)
    assert behind.service_s == pytest.approx(direct.service_s + 0.002)
    assert np.diff(behind.issue_s) == pytest.approx(np.diff(direct.issue_s) + 0.002)
    with pytest.raises(ValueError, match="cannot be negative"):
        replay(drive, flushes, DISK, path_s=-0.001)


def test_behind_a_path_the_drive_turns_to_another_request_before_a_streams_next_read_arrives() -> None:
    # process 0 reads on sequentially, each read issued the moment the last completed; process 1 has one read far
    # away waiting at the drive. Straight from the block layer, the stream's next read is at the drive when it
    # finishes the last (SPTF takes it, then the next: the far read waits for the stream to end). Behind a path
    # the next read is still on its way: the drive has only the far read to choose, and goes there.
    reads = 6
    offsets = [i * 65536 for i in range(reads)] + [DISK // 2]
    issue = [0.0001 * i for i in range(reads)] + [0.0]
    complete = [0.0001 * (i + 1) for i in range(reads)] + [0.5]
    s = Stream(np.array(offsets, dtype=np.int64), np.full(reads + 1, 65536, dtype=np.int64),
               np.zeros(reads + 1, dtype=np.int64), np.array([0] * reads + [1], dtype=np.int64),
               np.array(issue), np.array(complete))
    drive = model(DISK)
    direct, behind = replay(drive, s, DISK), replay(drive, s, DISK, path_s=0.001)
    assert direct.complete_s[reads] > direct.complete_s[reads - 1]  # the far read after the whole stream
    assert behind.complete_s[reads] < behind.complete_s[1]  # the far read before the stream's second read
