"""What the replay waits for, on random streams: every cause completed before its request was issued
(so the replay's dependencies form no cycle and it always ends), whoever the sessions are."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.disk.replay import Stream, causes, replay
from tests.helpers.workloads import model

DISK = 50 * 10**9
READ, WRITE, FLUSH = 0, 1, 2
KWORKER = 99


def random_stream(seed: int, sessions: bool) -> Stream:
    """Reads, writes and flushes of a few processes, a worker issuing the flushes; times that overlap."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(5, 120))
    op = rng.choice([READ, WRITE, FLUSH], size=count, p=[0.5, 0.35, 0.15]).astype(np.int64)
    process = np.where(op == FLUSH, KWORKER, rng.integers(0, 5, size=count)).astype(np.int64)
    issue = np.sort(rng.uniform(0.0, 1.0, size=count))
    complete = issue + rng.exponential(0.01, size=count)
    length = np.where(op == FLUSH, 0, rng.choice([4096, 8192, 131072], size=count)).astype(np.int64)
    # some reads start where another's ended: streams taken in turn
    offset = rng.integers(0, DISK // 8192, size=count).astype(np.int64) * 8192
    follow = (op == READ) & (rng.uniform(size=count) < 0.3)
    for i in np.flatnonzero(follow)[1:].tolist():
        j = int(rng.integers(0, i))
        offset[i] = offset[j] + length[j]
    offset = np.where(op == FLUSH, 0, np.minimum(offset, DISK - 131072))
    session = (process % 2 == 0) & (process != KWORKER) if sessions else None
    return Stream(offset, length, op, process, issue, complete, session=session)


@pytest.mark.parametrize("sessions", [False, True])
def test_every_cause_completed_before_its_request_and_the_replay_ends(sessions: bool) -> None:
    drive = model(DISK)
    for seed in range(60):
        stream = random_stream(seed, sessions)
        cause, previous = causes(stream)
        linked = np.flatnonzero(cause >= 0)
        assert (cause[linked] < linked).all(), seed  # only to a request issued before: no cycle
        assert (stream.complete_s[cause[linked]] <= stream.issue_s[linked] + 1e-12).all(), seed
        flushes = np.flatnonzero((stream.op == FLUSH) & (cause >= 0))
        assert (stream.op[cause[flushes]] != READ).all(), seed  # a flush follows a write (or the worker's own)
        before = np.flatnonzero(previous >= 0)
        assert (previous[before] < before).all(), seed
        done = replay(drive, stream, DISK, seed=seed)
        assert np.isfinite(done.complete_s).all() and (done.complete_s >= done.issue_s).all(), seed
