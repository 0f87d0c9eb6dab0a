"""What a partition's kernel counters say of each area on it, beyond one factor for all.

:mod:`advisor.engine.calibrate` compares the database's reads on a partition with the
kernel's. One factor for every file there would lend an OLTP table the merge factor of a
table scanned beside it, and leave temp and data-page writes in the database's units or
unknown. Three rules, each from counters the workload has:

* **patterns**: random reads are one request each; sequential reads take the requests left
  over (:func:`pattern_factors`);
* **temp alone on a partition**: its reads and write requests are the kernel's
  (:func:`temp_from_kernel`);
* **one area with no write counter on a partition** (PostgreSQL relations): the kernel's
  writes there are its data-page writes (:func:`unwritten_area`, :func:`writes_by_size`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import msgspec

from advisor.engine.areas import AreaKind, area_key
from advisor.model import DiskStatRate, FileRate
from advisor.units import KIB, mean_kib_of_rates

MAX_MERGED_REQUEST_KIB = 1024.0
"""The largest request the kernel is taken to merge sequential reads into (max_sectors_kb is 512-1280)."""


def _parts(rate: FileRate) -> tuple[float, float, float]:
    """(random IOs/s, sequential IOs/s, sequential MiB/s) of a file whose random share is known.

    A random read is one block; the block's size is the bytes per block the server counted
    (``blocks_read_per_s`` when its IOs were combined, else its reads are blocks).
    """
    share = rate.random_share if rate.random_share is not None else 1.0
    random = rate.read_iops * share
    blocks = rate.blocks_read_per_s or rate.read_iops
    block_mb = rate.read_mb_s / blocks if blocks > 0 else 0.0
    return random, rate.read_iops - random, max(0.0, rate.read_mb_s - random * block_mb)


@dataclass(frozen=True, slots=True)
class PatternFactors:
    """Request factors of a device's random and sequential reads, and each file's (IOPS, MiB/s, random share)."""

    random_iops: float
    sequential_iops: float
    sequential_request_kib: float | None  # the sequential reads' mean request on the disk
    files: dict[str, tuple[float, float, float | None]]


def pattern_factors(mb_factor: float, kernel_read_iops: float, reading: Sequence[FileRate]) -> PatternFactors | None:
    """Per-file factors on a device where some files read sequentially; None where none does.

    The byte share that reached the disk is the device's (which area's reads the page cache
    served is not counted anywhere), but requests are scaled by pattern: a random read is one
    request; sequential reads are the requests the kernel counted beyond the random ones
    (merged by readahead or combined by the server), never fewer than their bytes in
    requests of :data:`MAX_MERGED_REQUEST_KIB`. So an OLTP table sharing a partition with a
    scanned one keeps its own reads instead of the scan's merge factor.
    """
    if not any(f.random_share is not None and f.random_share < 1.0 for f in reading):
        return None
    m = mb_factor
    parts = {f.file_id: _parts(f) for f in reading}
    rand_db = sum(p[0] for p in parts.values())
    seq_db = sum(p[1] for p in parts.values())
    seq_mb = sum(p[2] for p in parts.values()) * m
    kernel = kernel_read_iops
    if (rand_db + seq_db) * m <= kernel:
        if m >= 1.0:
            return None  # nothing to scale: the kernel saw at least as many requests and bytes
        f_rand = f_seq = m
    else:
        seq = min(seq_db * m, max(kernel - rand_db * m, seq_mb * KIB / MAX_MERGED_REQUEST_KIB))
        f_seq = seq / seq_db if seq_db > 0 else m
        f_rand = min(m, max(0.0, kernel - seq) / rand_db) if rand_db > 0 else m
    seq_requests = seq_db * f_seq
    per_file: dict[str, tuple[float, float, float | None]] = {}
    for f in reading:
        rand, seq_ios, _ = parts[f.file_id]
        ios = rand * f_rand + seq_ios * f_seq
        per_file[f.file_id] = (ios / f.read_iops if f.read_iops > 0 else 1.0, m,
                               rand * f_rand / ios if ios > 0 else f.random_share)
    request_kib = seq_mb * KIB / seq_requests if seq_requests > 0 else None
    return PatternFactors(f_rand, f_seq, request_kib, per_file)


def temp_from_kernel(files: Sequence[FileRate], kernel: DiskStatRate) -> dict[str, FileRate]:
    """Temp files alone on a partition: their reads and write requests are the kernel's.

    PostgreSQL counts temp bytes written and nothing else: no temp reads, and no requests
    (a temp file is written in 8 KiB calls the page cache gathers into writes of hundreds of
    KiB). Where the temp tablespace has its partition to itself, the partition's reads are
    the temp reads and its mean write request is the temp's; the bytes written stay the
    database's, shared between the temp files by them.
    """
    written = sum(f.write_mb_s or 0.0 for f in files)
    request_mb = kernel.write_mb_s / kernel.w_s if kernel.w_s > 0 else None
    out = {}
    for f in files:
        share = (f.write_mb_s or 0.0) / written if written > 0 else 1.0 / len(files)
        writes = f.write_iops
        if request_mb and f.write_mb_s is not None:
            writes = f.write_mb_s / request_mb
        read_iops, read_mb = kernel.r_s * share, kernel.read_mb_s * share
        out[f.file_id] = msgspec.structs.replace(
            f, read_iops=read_iops, read_mb_s=read_mb, write_iops=writes,
            mean_read_kb=mean_kib_of_rates(read_mb, read_iops),
            mean_write_kb=mean_kib_of_rates(f.write_mb_s or 0.0, writes or 0.0),
            random_share=0.0 if read_iops > 0 else f.random_share,
        )
    return out


MIN_DATA_WRITES_PER_S = 1.0
"""Below one write a second, a partition's writes are its file system's own (ext4 and xfs commit
their journal every 5 s or so), not data pages: no area is given them."""


def unwritten_area(files: Sequence[FileRate], kernel: DiskStatRate, labels: Mapping[tuple[AreaKind, str], str]
                   ) -> str | None:
    """The one area of a partition whose files have no write counter (PostgreSQL relations), else None.

    Checkpointer, background writer and backends write data pages that no relation counter
    sees; where one area has the partition to itself, the kernel's writes there are its own.
    """
    if kernel.w_s < MIN_DATA_WRITES_PER_S or not files or any(f.write_iops is not None for f in files):
        return None
    names = {labels[area_key(f)] for f in files}
    return names.pop() if len(names) == 1 else None


def writes_by_size(files: Sequence[FileRate], kernel: DiskStatRate) -> dict[str, tuple[float, float]]:
    """The partition's kernel writes shared between its files by size (equally where sizes are unknown)."""
    sizes = [float(f.size_bytes or 0) for f in files]
    total = sum(sizes)
    shares = [s / total for s in sizes] if total > 0 else [1.0 / len(files)] * len(files)
    return {f.file_id: (kernel.w_s * share, kernel.write_mb_s * share) for f, share in zip(files, shares,
                                                                                            strict=True)}


def with_writes(rate: FileRate, write_iops: float, write_mb_s: float) -> FileRate:
    return msgspec.structs.replace(rate, write_iops=write_iops, write_mb_s=write_mb_s,
                                   mean_write_kb=mean_kib_of_rates(write_mb_s, write_iops))
