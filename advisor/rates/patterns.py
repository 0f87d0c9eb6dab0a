"""Which of a PostgreSQL relation's block reads were scans, and in IOs of what size.

PostgreSQL counts a relation's reads in blocks (``blks_read``), whatever IO read them: a
primary-key lookup reads one 8 KiB block per IO, a large sequential scan on 18 reads up to
``io_combine_limit`` (128 KiB) per IO, and on 16-17 reads a block per call that the kernel's
readahead merges. Counted in blocks, a scanned table looks like thousands of random 8 KiB
reads per second, and the disk model then charges each a seek and half a turn.

``pg_stat_io`` says how much was read sequentially: a scan of a table larger than a quarter
of ``shared_buffers`` reads through a ring of buffers, the ``bulkread`` context. It has no
relation dimension, so its blocks go to the tables that were scanned during the interval
(``scans``, :func:`pg_stat_get_numscans`), in proportion to their block reads and never more
than a table read. On 18 the view counts IOs (``reads``) and bytes (``read_bytes``), so
those blocks become IOs of the size the server issued (``read_iops`` then counts the
server's IOs, ``blocks_read_per_s`` keeps the block count); before 18 it counts blocks of
``op_bytes`` and the size of the disk's requests is left to the kernel's counters
(:mod:`advisor.engine.calibrate`). Either way ``random_share`` becomes the share of the
file's IOs that were not scans, which is what classifies an area as random or sequential.
The other relations' reads are single-block reads (``random_share`` 1) where the other
contexts read one block per IO (always before 18; on 18 when no read stream combined them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import msgspec

from advisor.model import FileIO, FileRate, Snapshot
from advisor.rates.counters import counter_delta
from advisor.units import KIB, MIB

SEQUENTIAL_READ_CONTEXTS = frozenset({"bulkread"})
"""pg_stat_io contexts whose relation reads are sequential scans of one table."""

SCANNED_KINDS = frozenset({"data"})
"""File kinds a sequential scan reads (tables and materialized views)."""


@dataclass(frozen=True, slots=True)
class BulkReads:
    """Relation reads of the sequential contexts over an interval."""

    blocks: float  # blocks read (read_bytes / block size)
    operations: float  # IOs the server issued for them (= blocks before 18)
    other_blocks_per_io: float | None = None  # the other contexts' relation reads (normal, vacuum): None unknown

    @property
    def blocks_per_io(self) -> float:
        """Blocks per IO: 1 before PostgreSQL 18, up to io_combine_limit / block size on 18."""
        return self.blocks / self.operations if self.operations > 0 else 1.0


def _bulk_sums(rows: Sequence[Mapping[str, object]], sequential: bool = True) -> dict[tuple[str, str], tuple[int, int]]:
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for row in rows:
        if row.get("object") != "relation" or (row.get("context") in SEQUENTIAL_READ_CONTEXTS) != sequential:
            continue
        reads, read_bytes = row.get("reads"), row.get("read_bytes")
        if not isinstance(reads, int) or not isinstance(read_bytes, int):
            continue
        out[(str(row.get("backend_type")), str(row.get("context")))] = (reads, read_bytes)
    return out


def bulk_reads(a: Snapshot, b: Snapshot, block_size: int) -> BulkReads | None:
    """The sequential contexts' relation reads between two snapshots; None when either lacks pg_stat_io
    or a counter went backwards (a reset: the interval's share is unknown)."""
    rows_a, rows_b = a.views.get("pg_stat_io", []), b.views.get("pg_stat_io", [])
    bulk = _delta(_bulk_sums(rows_a), _bulk_sums(rows_b))
    if bulk is None:
        return None
    other = _delta(_bulk_sums(rows_a, sequential=False), _bulk_sums(rows_b, sequential=False))
    other_per_io = other[1] / block_size / other[0] if other is not None and other[0] > 0 else None
    return BulkReads(bulk[1] / block_size, float(bulk[0]), other_per_io)


def _delta(before: Mapping[tuple[str, str], tuple[int, int]],
           after: Mapping[tuple[str, str], tuple[int, int]]) -> tuple[int, int] | None:
    """(IOs, bytes) read between two samples of the rows, None without rows or after a reset."""
    if not after or not before:
        return None
    ops = nbytes = 0
    for key, (reads, read_bytes) in after.items():
        old_reads, old_bytes = before.get(key, (0, 0))
        d_reads, back_r = counter_delta(old_reads, reads)
        d_bytes, back_b = counter_delta(old_bytes, read_bytes)
        if back_r or back_b or d_reads is None or d_bytes is None:
            return None
        ops += d_reads
        nbytes += d_bytes
    return ops, nbytes


def relation_write_mb_s(a: Snapshot, b: Snapshot, seconds: float) -> float | None:
    """MiB/s of relation pages written and extended by every backend type (checkpointer, background
    writer, backends), from pg_stat_io; None without it in both snapshots or after a reset."""
    def sums(rows: Sequence[Mapping[str, object]]) -> dict[tuple[str, str], tuple[int, int]]:
        out = {}
        for row in rows:
            if row.get("object") != "relation":
                continue
            written = [row.get(k) for k in ("write_bytes", "extend_bytes")]
            out[(str(row.get("backend_type")), str(row.get("context")))] = (
                0, sum(v for v in written if isinstance(v, int)))
        return out

    delta = _delta(sums(a.views.get("pg_stat_io", [])), sums(b.views.get("pg_stat_io", [])))
    return None if delta is None else delta[1] / MIB / seconds


def scans_between(a: Snapshot, b: Snapshot) -> dict[str, int]:
    """Sequential scans per table file in the interval (tables whose counter is known and grew)."""
    before: dict[str, FileIO] = {f.file_id: f for f in a.files if f.scans is not None}
    out = {}
    for f in b.files:
        if f.scans is None or f.kind not in SCANNED_KINDS:
            continue
        old = before.get(f.file_id)
        delta, reset = counter_delta(0 if old is None else old.scans, f.scans)
        if delta and old is not None and not reset:  # the collector's own scans at A are not the workload's
            delta -= min(old.collector_scans, delta)
        if delta:
            out[f.file_id] = delta
    return out


def with_scans(rates: Sequence[FileRate], scans: Mapping[str, int], bulk: BulkReads | None, seconds: float,
               block_size: int) -> tuple[tuple[FileRate, ...], list[str]]:
    """*rates* with the bulk reads given to the scanned tables, and a warning for what found no table.

    Each scanned table that read blocks takes the same fraction of its block reads as
    sequential (the bulk blocks over the scanned tables' blocks, at most all of them).
    """
    if bulk is None:
        return tuple(rates), []
    if bulk.other_blocks_per_io is not None and bulk.other_blocks_per_io <= SINGLE_BLOCK_MAX:
        rates = [_single(r) for r in rates]  # every other relation read was one block
    if bulk.blocks <= 0:
        return tuple(rates), []
    scanned = [r for r in rates if r.file_id in scans and r.read_iops > 0]
    bulk_per_s = bulk.blocks / seconds
    candidate_blocks = sum(r.read_iops for r in scanned)
    warnings = []
    if bulk_per_s > candidate_blocks * 1.01:
        warnings.append(
            f"pg_stat_io counted {bulk_per_s:.1f} sequentially read blocks/s (bulkread) where the tables scanned in "
            f"the interval read {candidate_blocks:.1f} blocks/s: the rest is not given to any table (a table scanned "
            "by a query still running when the interval ended counts no scan yet)"
        )
    if candidate_blocks <= 0:
        return tuple(rates), warnings
    fraction = min(1.0, bulk_per_s / candidate_blocks)
    per_io = max(1.0, bulk.blocks_per_io)
    ids = {r.file_id for r in scanned}
    return tuple(_split(r, fraction, per_io, block_size) if r.file_id in ids else r for r in rates), warnings


SINGLE_BLOCK_MAX = 1.05
"""Blocks per IO of the other contexts at or below which their reads are taken as single-block
(always before 18, whose normal context reads one block per call; on 18 a read stream may
combine them, and then a relation's other reads keep an unknown pattern)."""

RELATION_KINDS = frozenset({"data", "index", "toast", "sequence"})


def _single(rate: FileRate) -> FileRate:
    if rate.kind not in RELATION_KINDS or rate.read_iops <= 0 or rate.random_share is not None:
        return rate
    return msgspec.structs.replace(rate, random_share=1.0)


def _split(rate: FileRate, sequential_fraction: float, blocks_per_io: float, block_size: int) -> FileRate:
    blocks = rate.read_iops
    sequential = blocks * sequential_fraction
    random = blocks - sequential
    ios = random + sequential / blocks_per_io
    combined = blocks_per_io > 1.0
    mean = rate.read_mb_s * KIB / ios if ios > 0 else None
    return msgspec.structs.replace(
        rate, read_iops=ios, random_share=random / ios if ios > 0 else None,
        mean_read_kb=mean if mean is not None else block_size / KIB,
        blocks_read_per_s=blocks if combined else rate.blocks_read_per_s,
    )
