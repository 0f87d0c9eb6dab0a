"""Writes and cache flushes in the replay: the drive's write cache and barrier as the emulated
disk serves them, and the processes an ``fsync`` releases; and workers taking turns on one
sequential stream.

The expected times come from the :class:`Mechanism` itself, served in the order the emulated
disk's actuator serves it (a flush waits for what was queued before it and goes alone), on
the closed loop the stream describes: a backend writes, the block layer's worker issues the
flush, the backend (and one waiting behind it) go on when the flush completes.
"""

from __future__ import annotations

import numpy as np

from advisor.disk.emulator.timing import sized_model
from advisor.disk.mechanism import Mechanism
from advisor.disk.replay import Stream, causes, replay
from tests.helpers.workloads import model

DISK = 500 * 10**9
WAL = DISK // 2
KWORKER = 9
WRITE, FLUSH = 1, 2
THINK_S = 0.002
TO_FLUSH_S = 0.00003


def commits(mech: Mechanism, count: int) -> tuple[list[int], list[int], list[float], list[float], list[int]]:
    """Two backends taking turns to commit (write a WAL page, the worker flushes it, the other
    backend, released by that flush, writes next), timed on *mech*: ops, processes, issue and
    completion times, offsets."""
    ops, procs, issue, done, offsets = [], [], [], [], []
    t = 0.0
    for k in range(count):
        offset = WAL + (k // 2) * 8192  # WAL pages are rewritten as they fill
        finish = mech.service("write", offset, 8192, t)
        ops.append(WRITE), procs.append(k % 2), issue.append(t), done.append(finish), offsets.append(offset)
        flush_at = finish + TO_FLUSH_S
        flushed = mech.service("flush", 0, 0, flush_at)
        ops.append(FLUSH), procs.append(KWORKER), issue.append(flush_at), done.append(flushed), offsets.append(0)
        t = flushed + THINK_S
    return ops, procs, issue, done, offsets


def as_stream(ops: list[int], procs: list[int], issue: list[float], done: list[float], offsets: list[int]) -> Stream:
    op = np.array(ops, dtype=np.int64)
    return Stream(np.array(offsets, dtype=np.int64), np.where(op == WRITE, 8192, 0).astype(np.int64), op,
                  np.array(procs, dtype=np.int64), np.array(issue), np.array(done))


def test_commits_replay_as_the_mechanism_serves_them_on_another_disk() -> None:
    drive = model(DISK)
    # "measured" on a drive whose platter stood elsewhere (another rotational phase) ...
    measured = as_stream(*commits(Mechanism(sized_model(drive, DISK), seed=5), 200))
    # ... replayed on the model: the same closed loop, served by the model's own mechanism
    expected = commits(Mechanism(sized_model(drive, DISK), seed=0), 200)
    replayed = replay(drive, measured, DISK, seed=0)
    assert np.allclose(replayed.issue_s, expected[2], atol=1e-9)
    assert np.allclose(replayed.complete_s, expected[3], atol=1e-9)
    flushes = measured.op == FLUSH
    assert not np.allclose(replayed.service_s[flushes], measured.complete_s[flushes] - measured.issue_s[flushes])


def test_a_flush_follows_its_write_and_releases_the_backends() -> None:
    ops, procs, issue, done, offsets = commits(Mechanism(sized_model(model(DISK), DISK), seed=5), 3)
    cause, _ = causes(as_stream(ops, procs, issue, done, offsets))
    # write 0, flush 1 (after write 0, not after the worker's previous flush), write 2 (the other
    # backend: released by flush 1), flush 3 after write 2, write 4 after flush 3
    assert cause.tolist() == [-1, 0, 1, 2, 3, 4]


def test_a_flush_is_a_barrier_as_in_the_emulated_disk() -> None:
    drive = model(DISK)
    # four backends: three writes, a flush, a fourth write, all at the drive at once
    offsets = [DISK // 10, DISK // 3, DISK // 2, 0, DISK // 5]
    ops = [WRITE, WRITE, WRITE, FLUSH, WRITE]
    issue = [0.0, 1e-6, 2e-6, 3e-6, 4e-6]
    stream = Stream(np.array(offsets, dtype=np.int64), np.array([8192, 8192, 8192, 0, 8192], dtype=np.int64),
                    np.array(ops, dtype=np.int64), np.arange(5, dtype=np.int64), np.array(issue),
                    np.array(issue) + 0.05)
    replayed = replay(drive, stream, DISK, seed=0)
    order = np.argsort(replayed.complete_s, kind="stable").tolist()
    assert order.index(3) == 3 and order[-1] == 4  # the flush after the three writes, the last write after it
    mech = Mechanism(sized_model(drive, DISK), seed=0)
    now = 0.0
    for i in order:  # the actuator's order, served one after the other
        now = mech.service(("read", "write", "flush")[ops[i]], offsets[i], 8192 if ops[i] == WRITE else 0,
                           max(now, issue[i]))
        assert abs(replayed.complete_s[i] - now) < 1e-9
    flush = replayed.service_s[3]
    assert flush > 3 * drive.revolution_ms / 1000 / 2  # it destaged the three writes the cache acknowledged


def test_after_a_flush_the_drive_starts_the_oldest_request_not_the_nearest() -> None:
    """The requests a flush held back reach the drive one by one and an idle drive starts the first:
    a far read issued first goes before a near read issued after it. Behind a write instead of
    the flush, both wait at the drive together and its reordering takes the near one first."""
    drive = model(DISK)
    near, far = DISK // 10 + 8192, DISK - DISK // 20  # beside the write just done, and the far edge
    for held_by, expect_first in ((FLUSH, "far"), (WRITE, "near")):
        offsets = [DISK // 10, 0 if held_by == FLUSH else DISK // 10 + 65536, far, near]
        ops = [WRITE, held_by, 0, 0]
        issue = [0.0, 1e-6, 2e-6, 3e-6]  # the two reads issued while the flush (or the second write) is served
        stream = Stream(np.array(offsets, dtype=np.int64),
                        np.array([8192, 0 if held_by == FLUSH else 8192, 8192, 8192], dtype=np.int64),
                        np.array(ops, dtype=np.int64), np.arange(4, dtype=np.int64), np.array(issue),
                        np.array(issue) + 0.05)
        replayed = replay(drive, stream, DISK, seed=0)
        order = np.argsort(replayed.complete_s, kind="stable").tolist()
        assert order[:2] == [0, 1], order
        assert order[2] == (2 if expect_first == "far" else 3), (held_by, order)


def test_a_fua_write_goes_to_the_media_whatever_the_cache() -> None:
    drive = model(DISK)
    cached = Mechanism(sized_model(drive, DISK), seed=0, write_cache="volatile")
    through = Mechanism(sized_model(drive, DISK), seed=0, write_cache="off")
    assert cached.service("write", DISK // 3, 8192, 0.0) < 0.001  # acknowledged from the cache
    cached = Mechanism(sized_model(drive, DISK), seed=0, write_cache="volatile")
    assert cached.service("write-fua", DISK // 3, 8192, 0.0) == through.service("write", DISK // 3, 8192, 0.0)
    stream = Stream(np.array([DISK // 3], dtype=np.int64), np.array([8192], dtype=np.int64),
                    np.array([WRITE], dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1), np.full(1, 0.01),
                    fua=np.array([True]))
    fua = replay(drive, stream, DISK, seed=0)
    plain = replay(drive, Stream(stream.offset_bytes, stream.length_bytes, stream.op, stream.process,
                                 stream.issue_s, stream.complete_s), DISK, seed=0)
    assert fua.service_s[0] > 0.002 > plain.service_s[0]


def taking_turns(mech: Mechanism, count: int) -> tuple[list[float], list[float]]:
    """Two workers reading one region in turns, 128 KiB each, each read issued 0.2 ms after
    the other worker's read completed (a parallel scan): issue and completion times on *mech*."""
    issue, done = [], []
    t = 0.0
    for k in range(count):
        finish = mech.service("read", DISK // 4 + k * 131072, 131072, t)
        issue.append(t), done.append(finish)
        t = finish + 0.0002
    return issue, done


def test_workers_taking_turns_on_one_stream_keep_their_turns() -> None:
    drive = model(DISK)
    count = 60
    issue, done = taking_turns(Mechanism(sized_model(drive, DISK), seed=5), count)
    measured = Stream(np.array([DISK // 4 + k * 131072 for k in range(count)], dtype=np.int64),
                      np.full(count, 131072, dtype=np.int64), np.zeros(count, dtype=np.int64),
                      np.arange(count, dtype=np.int64) % 2, np.array(issue), np.array(done))
    cause, _ = causes(measured)
    assert cause.tolist() == [-1, *range(count - 1)]  # each read continues the other worker's
    expected = taking_turns(Mechanism(sized_model(drive, DISK), seed=0), count)
    replayed = replay(drive, measured, DISK, seed=0)
    assert np.allclose(replayed.issue_s, expected[0], atol=1e-9)
    assert np.allclose(replayed.complete_s, expected[1], atol=1e-9)


def test_a_flush_a_session_waits_for_follows_its_write_not_a_timers_that_completed_last() -> None:
    # session 0 writes its WAL page; the journal (process 5, on its timer) writes a block that
    # completes after it; the worker's flush goes out; session 0 goes on when it completes
    offsets = [WAL, DISK // 8, 0, WAL + 8192]
    ops, procs = [WRITE, WRITE, FLUSH, WRITE], [0, 5, KWORKER, 0]
    issue, done = [0.0, 0.004, 0.0062, 0.02], [0.005, 0.006, 0.019, 0.021]
    named = as_stream(ops, procs, issue, done, offsets)
    session = np.array([True, False, False, True])
    cause, _ = causes(Stream(named.offset_bytes, named.length_bytes, named.op, named.process, named.issue_s,
                             named.complete_s, session=session))
    assert cause[2] == 0  # the flush follows the session's write
    assert causes(named)[0][2] == 1  # whom nobody named a session: the last write, the journal's, as before
    # the session's second commit: the last write before its flush is the session's own, which it keeps
    ops2, procs2 = [*ops, FLUSH, WRITE], [*procs, KWORKER, 5]
    issue2, done2 = [*issue, 0.0212, 0.04], [*done, 0.03, 0.041]
    both = as_stream(ops2, procs2, issue2, done2, [*offsets, 0, DISK // 8 + 8192])
    cause2, _ = causes(Stream(both.offset_bytes, both.length_bytes, both.op, both.process, both.issue_s,
                              both.complete_s, session=np.r_[session, False, False]))
    assert cause2[4] == 3


def test_a_flush_that_releases_a_session_which_never_wrote_keeps_its_owner() -> None:
    # the session only reads; the journal's write owns the flush; a foreign owner and no session write to follow
    ops, procs = [0, WRITE, FLUSH, 0], [0, 5, KWORKER, 0]
    named = as_stream(ops, procs, [0.0, 0.004, 0.0062, 0.02], [0.005, 0.006, 0.019, 0.021], [WAL, DISK // 8, 0, WAL])
    cause, _ = causes(Stream(named.offset_bytes, named.length_bytes, named.op, named.process, named.issue_s,
                             named.complete_s, session=np.array([True, False, False, True])))
    assert cause[2] == 1


def test_a_flush_follows_its_owner_not_the_workers_previous_flush() -> None:
    # the journal commits (its write, the worker's flush); the session's WAL write completes meanwhile; its
    # flush waits in the block layer for the journal's to complete, then goes out: it follows the session's
    # write, not the journal's flush (which, replayed, keeps the journal's timer)
    ops, procs = [WRITE, FLUSH, WRITE, FLUSH, 0], [5, KWORKER, 0, KWORKER, 0]
    issue, done = [0.0, 0.002, 0.003, 0.02, 0.031], [0.0015, 0.019, 0.004, 0.03, 0.04]
    stream = as_stream(ops, procs, issue, done, [DISK // 8, 0, WAL, 0, WAL + 8192])
    cause, _ = causes(stream)
    assert cause[3] == 2 and cause[4] == 3


def test_the_drives_age_limit_counts_from_when_a_flush_let_a_request_through() -> None:
    """Requests issued while a long flush runs wait in the host (a SATA flush is not queued), reach the
    drive when it completes, and its age limit counts from there: the drive then takes them nearest
    first, not oldest first as it would if their wait behind the flush made them all overdue."""
    drive = model(DISK)
    rng = np.random.default_rng(3)
    writes = 90
    offsets = [int(x) // 4096 * 4096 for x in rng.integers(0, DISK - 8192, writes)]  # destaged by the flush
    ops, issue = [WRITE] * writes, [k * 1e-6 for k in range(writes)]
    offsets.append(0), ops.append(FLUSH), issue.append(0.001)
    near, far = DISK // 3, DISK - DISK // 20
    reads = 10
    for k in range(reads):  # issued while the flush runs, far and near in turn
        offsets.append((far if k % 2 == 0 else near) + k * 65536), ops.append(0), issue.append(0.002 + k * 1e-4)
    count = len(ops)
    stream = Stream(np.array(offsets, dtype=np.int64),
                    np.array([0 if op == FLUSH else 8192 for op in ops], dtype=np.int64), np.array(ops, dtype=np.int64),
                    np.arange(count, dtype=np.int64), np.array(issue), np.array(issue) + 5.0)
    replayed = replay(drive, stream, DISK, seed=0)
    assert replayed.service_s[writes] > 0.5  # the flush destaged the writes for longer than the age limit
    served = [i for i in np.argsort(replayed.complete_s, kind="stable").tolist() if i > writes]
    sides = ["far" if offsets[i] >= far else "near" for i in served]
    assert sides[0] == "far"  # the oldest goes first after the flush (see the test above) ...
    switches = sum(a != b for a, b in zip(sides, sides[1:], strict=False))
    assert switches <= 2, sides  # ... then the nearest: not far, near, far, near ... as the held reads' ages would


def test_a_committing_session_woken_by_a_group_commit_follows_that_flush_not_the_writes_after_it() -> None:
    """PostgreSQL's group commit: the flush that completes wakes every session whose commit it covered;
    one of them (the next leader) writes the next WAL page at once, and that write completes before the
    other session's next request goes out. That write cannot have woken the other session: its next
    request follows the flush, a millisecond later, not its own older write's covering flush two flushes
    back (replayed, that kept a whole flush's wait as the session's own time, under any layout)."""
    # session 0 commits (write 0, flush 1); session 1 waits for the WAL lock meanwhile, then its commit
    # rides on flush 3 (leader 0 again: write 2); session 0 writes WAL at once (write 4) as flush 3
    # completes; session 1 then goes on (request 5, a data page)
    ops = [WRITE, FLUSH, WRITE, FLUSH, WRITE, WRITE]
    procs = [0, KWORKER, 0, KWORKER, 0, 1]
    issue = [0.0, 0.0011, 0.0120, 0.0131, 0.0232, 0.0240]
    done = [0.001, 0.0119, 0.013, 0.0230, 0.0236, 0.0300]
    offsets = [WAL, 0, WAL + 8192, 0, WAL + 16384, DISK // 8]
    # session 1 wrote earlier (a commit of its own, covered by an older flush) so it is a committing session
    ops, procs = [WRITE, FLUSH, *ops], [1, KWORKER, *procs]
    issue = [-0.02, -0.019, *issue]
    done = [-0.0195, -0.01, *done]
    offsets = [WAL - 8192, 0, *offsets]
    cause, _ = causes(as_stream(ops, procs, issue, done, offsets))
    assert cause[7] == 5  # the flush that woke it, though write 6 (the next leader's) completed after
    # a read of another process completing in between could have woken it: no link to the flush then
    ops_r, procs_r = [*ops[:7], 0, ops[7]], [*procs[:7], 2, procs[7]]
    issue_r, done_r = [*issue[:7], 0.0233, issue[7]], [*done[:7], 0.0238, done[7]]
    cause_r, _ = causes(as_stream(ops_r, procs_r, issue_r, done_r, [*offsets[:7], DISK // 4, offsets[7]]))
    assert cause_r[8] != 5
    # a process that never wrote (a reader) is not taken for a committing session: its own cause stays
    ops_n = [*ops[:7], 0]
    cause_n, _ = causes(as_stream(ops_n, [*procs[:7], 3], issue, done, offsets))
    assert cause_n[7] != 5
