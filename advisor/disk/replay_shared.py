"""Sequential streams several processes share: the next chunk goes to whoever asks next.

A parallel sequential scan (PostgreSQL's parallel workers, a multi-process backup) hands out
the next range of one file from a shared counter: worker A reads chunk n, whichever worker
asks next reads chunk n+1. In the trace each read has the position it was handed then; a
replay that kept each read at its traced position would, once one worker runs ahead, send
the stream's chunks to the drive out of order, and a drive that was streaming them from its
read-ahead segment would seek back and forth instead (on the accuracy suite's mixed workload
the scan's reads, contiguous with the one issued before 90 % of the time as traced, were 26-65 %
so replayed, and 45-81 % of them served from the read-ahead for 85 % measured).

:func:`shared_streams` finds such streams in a trace: chains of reads in issue order, each
starting where an earlier one of the chain ended, or up to :data:`SKIPPED_CHUNKS` chunks of its
own length past that end (the chunks in between went to the other workers, whose reads of them
come later: each is then the chain's too), read by two processes or more. Positions are the
file's bytes where the stream knows them (:attr:`advisor.disk.replay_stream.Stream.sequence_bytes`):
a table in several extents is one chain across them, as the workers' counter runs through the
file, not the disk. In the replay (:func:`advisor.disk.replay_devices.replay_on_devices`) the k-th
read of a chain to be issued takes the k-th chunk of the chain as traced, its position and its
length, whoever issues it.

Chained by exact continuation on the disk's bytes alone, the accuracy suite's mixed workload
(a parallel scan of a table in 13 extents over two regions of the disk, by a leader and two
workers taking 128 KiB chunks) broke into 38-49 chains, one at each extent's end and at each
chunk a worker took ahead of another's. Replayed, two such chains of one scan ran at once, far
apart, and the drive served 55-87 % of the scan's reads from its read-ahead against 92-93 % on
the emulated drive: its replayed busy time was 7-19 % over the measured one (runs 31-34).
Chained across extents and skips it was -4 to +1 % (docs/accuracy.md, after run 34).

A chain is over once none of its reads was issued for :data:`SHARED_GAP_S`: the same table scanned
again ten seconds later starts at the chunks the last scan read, and the ends and skipped chunks it
left behind would otherwise take the new scan's reads into the old chain. Replayed, the k-th read of
such a merged chain took the old scan's k-th chunk: run 37's second scan had its new workers reading
the table's last third while its leader read the first chunks, two streams far apart, and the scan
lasted 19 s replayed against 2 s on the emulated drive (docs/accuracy.md, after run 37).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from advisor.trace.links import STREAM_GAP_S

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

READ = 0
SHARED_MIN_READS = 8
"""A chain this long or longer (and read by two processes or more) is a shared stream."""
SKIPPED_CHUNKS = 8
"""How many chunks (of the read's own length) a read may start past a chain's end and still continue
it: the other readers took those in between (the mixed workload's traced scans skipped 2-5)."""
SHARED_GAP_S = STREAM_GAP_S
"""A chain none of whose reads was issued for this long is over: a read at its end starts another
(:data:`advisor.trace.links.STREAM_GAP_S`, the bound a read that continues another's is linked within)."""


def shared_streams(op: IntArray, process: IntArray, offset: IntArray, length: IntArray,
                   issue_s: FloatArray) -> tuple[IntArray, list[IntArray]]:
    """Per request its shared stream (-1: none), and each stream's reads in issue order (*issue_s*).

    >>> op, proc = np.zeros(10, dtype=np.int64), np.array([1, 2] * 5)
    >>> off, ln, at = np.arange(10) * 8, np.full(10, 8), np.arange(10) * 0.001
    >>> chain, members = shared_streams(op, proc, off, ln, at)
    >>> chain.tolist(), [m.tolist() for m in members]
    ([0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]])
    >>> shared_streams(np.ones(2, dtype=np.int64), proc[:2], off[:2], ln[:2], at[:2])[0].tolist()  # writes only
    [-1, -1]

    A reader that takes chunk 3 before chunk 2 was issued (another worker's, later) stays in the chain:

    >>> skipped = np.array([0, 1, 3, 2, 4, 5, 6, 7, 8, 9]) * 8
    >>> shared_streams(op, proc, skipped, ln, at)[0].tolist()
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]

    A read ten seconds later starts another stream, though it starts where the first ended:

    >>> later = np.r_[off, off + 80]
    >>> chain, members = shared_streams(np.r_[op, op], np.r_[proc, proc], later, np.r_[ln, ln], np.r_[at, at + 10])
    >>> chain.tolist()
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    """
    count = len(op)
    chain = np.full(count, -1, dtype=np.int64)
    ends: dict[int, int] = {}  # a chain's end (byte), or the start of a chunk it skipped -> the chain
    members: list[list[int]] = []
    last_s: list[float] = []  # per chain, the issue of its latest read
    ops, offs, lens, times = op.tolist(), offset.tolist(), length.tolist(), issue_s.tolist()
    for i in np.argsort(issue_s, kind="stable").tolist():
        if ops[i] != READ or lens[i] <= 0:
            continue
        start, size, at = offs[i], lens[i], times[i]
        found = _continued(ends, start, size, at, last_s)
        if found is None:
            found = len(members)
            members.append([])
            last_s.append(at)
        members[found].append(i)
        chain[i] = found
        last_s[found] = at
        ends[start + size] = found
    kept: list[IntArray] = []
    if not members:
        return chain, kept
    renumber = np.full(len(members), -1, dtype=np.int64)
    for c, reads in enumerate(members):
        if len(reads) >= SHARED_MIN_READS and len(set(process[reads].tolist())) >= 2:
            renumber[c] = len(kept)
            kept.append(np.array(reads, dtype=np.int64))
    return np.where(chain >= 0, renumber[np.maximum(chain, 0)], -1), kept


def _continued(ends: dict[int, int], start: int, size: int, at: float, last_s: list[float]) -> int | None:
    """The chain still read (:data:`SHARED_GAP_S`) that ended at *start*, else the nearest that ended up to
    :data:`SKIPPED_CHUNKS` chunks of *size* before it, or None; the chunks skipped become starts the chain
    continues from (their reads are issued later, by the other readers). Ends of chains that are over are
    dropped on the way."""
    for skipped in range(SKIPPED_CHUNKS + 1):
        end = start - skipped * size
        found = ends.pop(end, None)
        if found is not None and at - last_s[found] > SHARED_GAP_S:
            found = None
        if found is not None:
            for chunk in range(skipped):
                ends[end + chunk * size] = found
            return found
    return None
