"""A stream several processes read in turn: the replayed drive gets its chunks in order, whoever asks.

The trace has a fast worker and a slow one reading one file's chunks as a shared counter hands
them out. Replayed on the model, each worker keeps its own pace (its traced think times), so
the two ask in another order than traced; the chunks must still reach the drive in order, as
the shared counter would hand them, not each at the position it had in the trace.
"""

from __future__ import annotations

import numpy as np
import pytest

from advisor.disk import mechanism
from advisor.disk.replay import Stream, replay
from advisor.disk.replay_shared import shared_streams
from tests.helpers.workloads import model

DISK = 500 * 10**9
START = DISK // 4
CHUNK = 131072


def two_workers(count: int) -> Stream:
    """Worker 0 asks for a chunk 0.2 ms after its last completes, worker 1 after 5 ms; each
    chunk is the next of the file in the order they asked (times as a drive at 1 ms a chunk)."""
    asks: list[tuple[float, int]] = []
    for worker, think in ((0, 0.0002), (1, 0.005)):
        t = 0.0005 * worker
        while len([a for a in asks if a[1] == worker]) < count:
            asks.append((t, worker))
            t += 0.001 + think
    asks.sort()
    asks = asks[:count]
    issue = np.array([t for t, _ in asks])
    return Stream(np.array([START + k * CHUNK for k in range(count)], dtype=np.int64),
                  np.full(count, CHUNK, dtype=np.int64), np.zeros(count, dtype=np.int64),
                  np.array([w for _, w in asks], dtype=np.int64), issue, issue + 0.001)


def served_offsets(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The offsets the drive serves from now on, in its order (the mechanism's service, recorded)."""
    served: list[int] = []
    service = mechanism.Mechanism.service

    def recorded(self: mechanism.Mechanism, op: str, offset: int, length: int, now: float) -> float:
        served.append(offset)
        return service(self, op, offset, length, now)

    monkeypatch.setattr(mechanism.Mechanism, "service", recorded)
    return served


def test_the_chunks_of_a_shared_stream_reach_the_drive_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = two_workers(40)
    chain, members = shared_streams(stream.op, stream.process, stream.offset_bytes, stream.length_bytes,
                                    stream.issue_s)
    assert len(members) == 1 and (chain == 0).all()  # one stream, read by both workers
    served = served_offsets(monkeypatch)
    replayed = replay(model(DISK), stream, DISK, seed=0)
    # the workers asked in another order than traced (else the test shows nothing) ...
    assert np.argsort(replayed.issue_s, kind="stable").tolist() != list(range(len(served)))
    # ... and the drive still read the file front to back, chunk after chunk
    assert served == [START + k * CHUNK for k in range(40)]


def test_a_stream_one_process_reads_alone_is_not_shared() -> None:
    stream = two_workers(40)
    alone = np.zeros(40, dtype=np.int64)
    chain, members = shared_streams(stream.op, alone, stream.offset_bytes, stream.length_bytes, stream.issue_s)
    assert members == [] and (chain == -1).all()


def test_a_file_in_two_extents_is_one_stream_and_a_skipped_chunk_stays_in_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The file's second half lies far from its first (ext4 laid it out in pieces), and one worker took
    chunk 6 before the other asked for chunk 5. Followed through the file's bytes, the two workers read
    one stream; the drive gets the file front to back, crossing to the second extent once."""
    from dataclasses import replace

    from advisor.trace.codec import ExtentTable
    from advisor.trace.extents import file_positions

    far = DISK // 2
    table = ExtentTable(file=np.array([0, 0]), file_offset=np.array([0, 20 * CHUNK]),
                        disk_byte=np.array([START, far]), length=np.array([20 * CHUNK, 20 * CHUNK]))
    disk_of = [START + k * CHUNK if k < 20 else far + (k - 20) * CHUNK for k in range(40)]
    asked = two_workers(40)
    order = list(range(40))
    order[5], order[6] = 6, 5  # chunk 6 asked for before chunk 5
    offsets = np.array([disk_of[k] for k in order], dtype=np.int64)
    on_disk = replace(asked, offset_bytes=offsets)
    by_disk = shared_streams(on_disk.op, on_disk.process, on_disk.followed_bytes, on_disk.length_bytes,
                             on_disk.issue_s)[1]
    assert len(by_disk) > 1  # the disk's bytes break the stream at the skip and at the second extent
    stream = replace(on_disk, sequence_bytes=file_positions(offsets, table))
    chain, members = shared_streams(stream.op, stream.process, stream.followed_bytes, stream.length_bytes,
                                    stream.issue_s)
    assert len(members) == 1 and (chain == 0).all()
    served = served_offsets(monkeypatch)
    replay(model(DISK), stream, DISK, seed=0)
    assert served == [disk_of[k] for k in order]  # the traced hand-out, chunk 6 then 5, then on in file order
    moved = stream.moved(offsets + 4096)
    assert moved.sequence_bytes is stream.sequence_bytes  # a planned layout keeps the bytes of the file
