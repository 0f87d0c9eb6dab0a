"""A process that starts as another ends starts, replayed, when that one ends (advisor.trace.handovers)."""

from __future__ import annotations

import numpy as np

from advisor.disk.replay import Stream, causes, replay
from advisor.trace.handovers import HANDOVER_GAP_S, handovers
from tests.helpers.workloads import model

DISK = 500 * 10**9


def two_runs(gap_s: float, count: int = 150, traced_ms: float = 3.0, seed: int = 5) -> Stream:
    """Process 0, a database session, reads at random over the whole disk one at a time, traced at
    *traced_ms* a read (far faster than the drive serves such reads); process 1, another session, does
    the same from *gap_s* after process 0's last read completed, as the next run of a benchmark does."""
    rng = np.random.default_rng(seed)
    offsets = (rng.integers(0, DISK, 2 * count) // 8192 * 8192).astype(np.int64)
    issue, complete = [], []
    clock = 0.0
    for i in range(2 * count):
        if i == count:
            clock += gap_s
        issue.append(clock)
        clock += traced_ms / 1000
        complete.append(clock)
    process = np.repeat(np.array([0, 1], dtype=np.int64), count)
    return Stream(offsets, np.full(2 * count, 8192, dtype=np.int64), np.zeros(2 * count, dtype=np.int64),
                  process, np.array(issue), np.array(complete), session=np.ones(2 * count, dtype=bool))


def test_the_next_process_starts_the_traced_gap_after_the_last_one_ended() -> None:
    s = two_runs(0.2)
    cause, _ = causes(s)
    assert cause[150] == 149  # process 1's first read follows process 0's last
    replayed = replay(model(DISK), s, DISK)
    first_end = replayed.complete_s[:150].max()
    # the drive serves each random read in about 12 ms, not 3: process 0 ends far later than traced,
    # and process 1 still starts 0.2 s after it, never beside it
    assert first_end > 1.5
    assert abs(replayed.issue_s[150] - (first_end + 0.2)) < 1e-9
    assert replayed.queue_depth == 1
    assert replayed.service_s.max() < 0.05  # one read at a time: none waited behind the other process


def test_a_process_that_started_later_than_the_gap_keeps_its_traced_start() -> None:
    s = two_runs(HANDOVER_GAP_S + 0.5)
    cause, _ = causes(s)
    assert cause[150] == -1
    replayed = replay(model(DISK), s, DISK)
    assert abs(replayed.issue_s[150] - (s.issue_s[150] - s.issue_s[0])) < 1e-9


def test_only_a_session_hands_over_to_a_session() -> None:
    s = two_runs(0.2)
    kernel_first = np.repeat(np.array([False, True]), 150)  # process 0 no database session
    assert handovers(s.process, s.issue_s, s.complete_s, kernel_first)[150] == -1
    kernel_next = np.repeat(np.array([True, False]), 150)  # process 1 none
    assert handovers(s.process, s.issue_s, s.complete_s, kernel_next)[150] == -1
    assert handovers(s.process, s.issue_s, s.complete_s, None)[150] == -1  # nobody named: nobody is known to be one
    assert handovers(s.process, s.issue_s, s.complete_s, np.ones(300, dtype=bool))[150] == 149


def test_a_flush_never_takes_over() -> None:
    s = two_runs(0.2)
    op = s.op.copy()
    op[150] = 2  # process 1's first request a cache flush
    cause, _ = causes(Stream(s.offset_bytes, s.length_bytes, op, s.process, s.issue_s, s.complete_s,
                             session=s.session))
    assert cause[150] == -1


def test_the_latest_ended_process_hands_over_and_a_running_one_never_does() -> None:
    # process 0 ends at 1.0, process 1 at 2.0; process 2 starts at 2.3 (after both ended: follows 1's
    # last); process 3 starts at 1.5, while process 1 still runs (follows 0's last, which ended 0.5 s before)
    process = np.array([0, 1, 1, 3, 2])
    issue = np.array([0.0, 0.0, 1.8, 1.5, 2.3])
    complete = np.array([1.0, 0.5, 2.0, 1.6, 2.4])
    assert handovers(process, issue, complete, np.ones(5, dtype=bool)).tolist() == [-1, -1, -1, 0, 2]
