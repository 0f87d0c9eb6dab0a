"""Per-area rates: file rates summed over a tablespace, an area or any group, in one place.

:func:`advisor.rates.workload.diff` gives one :class:`~advisor.model.FileRate` per file; this module
sums them per group, with the rules every consumer shares (the engine's areas, the
``advisor workload`` tables, the fleet):

* Unknown stays unknown. PostgreSQL keeps no per-relation write counter, so a tablespace of
  relations has ``write_iops`` None, never a false 0. When only some files of a group have a
  figure, the sum covers those and ``files_writes_unknown`` counts the others.
* A size the source does not state (AWR and Statspack reports) is counted in
  ``files_size_unknown``; ``known_size_bytes`` is None while any is missing.
* The counter reset rule is :func:`advisor.rates.counters.counter_delta`'s, applied per file by
  ``diff``: a group holding a file whose counter went backwards is a ``lower_bound``.
* Units are FileRate's (:mod:`advisor.units`): IOPS per second, MB/s of 1,048,576 bytes.

:func:`tablespace_rates` gives the rows per (tablespace, file kind) the tables show;
:func:`sum_rates` groups by any key; :class:`RateSum` is the running sum for a caller that
gathers more per group in the same pass (:func:`advisor.engine.areas.group_areas`). A caller
holding counter rows rather than a workload (the fleet repository's per-file rows) rates
each file with :func:`advisor.rates.workload.file_rate` first, so the reset rule is the same.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from advisor.model import FileRate
from advisor.units import mean_kib_of_rates

Key = TypeVar("Key", bound=Hashable)


@dataclass(frozen=True, slots=True)
class RateTotals:
    """Rates summed over the files of one group (per second; MB = 1,048,576 bytes).

    ``write_iops``/``write_mb_s``/``syncs_per_s`` are None when no file of the group has that
    counter; ``random_share`` is weighted by reads and None when no read says it.
    """

    files: int
    size_bytes: int  # sum of the stated sizes; see files_size_unknown
    files_size_unknown: int
    read_iops: float
    read_mb_s: float
    write_iops: float | None
    write_mb_s: float | None
    files_writes_unknown: int  # files without a write counter: their writes are in no sum
    syncs_per_s: float | None
    random_share: float | None
    lower_bound: bool  # a counter of a file went backwards: the sums count only since the reset
    combined_files: int = 0  # files whose reads are the server's combined IOs (blocks_read_per_s)
    read_blocks_per_s: float = 0.0  # blocks read (read_iops where the server counts blocks, not IOs)

    @property
    def known_size_bytes(self) -> int | None:
        """The group's size, or None while a file's size is unknown (never a partial sum shown as whole)."""
        return None if self.files_size_unknown else self.size_bytes

    @property
    def counted_iops(self) -> float:
        """Reads plus the writes that were counted (unknown writes add nothing): the IO the server saw."""
        return self.read_iops + (self.write_iops or 0.0)

    @property
    def mean_read_kb(self) -> float | None:
        """Mean read size in KiB, None without reads."""
        return mean_kib_of_rates(self.read_mb_s, self.read_iops)


class RateSum:
    """The running sums of one group while files are scanned (one pass, no sorting)."""

    __slots__ = ("files", "size", "size_unknown", "read_iops", "read_mb", "write_iops", "write_mb", "writes_seen",
                 "write_mb_seen", "writes_unknown", "syncs", "syncs_seen", "random_num", "random_den", "lower_bound",
                 "combined", "blocks")

    def __init__(self) -> None:
        self.files = self.size = self.size_unknown = self.writes_unknown = 0
        self.read_iops = self.read_mb = self.write_iops = self.write_mb = self.syncs = 0.0
        self.random_num = self.random_den = 0.0
        self.writes_seen = self.write_mb_seen = self.syncs_seen = self.lower_bound = False
        self.combined = 0
        self.blocks = 0.0

    def add(self, rate: FileRate) -> None:
        """Add one file's rates (unknown figures are counted as unknown, not as 0)."""
        self.files += 1
        size = rate.size_bytes
        if size is None:
            self.size_unknown += 1
        else:
            self.size += size
        reads = rate.read_iops
        self.read_iops += reads
        self.read_mb += rate.read_mb_s
        writes = rate.write_iops
        if writes is None:
            self.writes_unknown += 1
        else:
            self.write_iops += writes
            self.writes_seen = True
        if rate.write_mb_s is not None:
            self.write_mb += rate.write_mb_s
            self.write_mb_seen = True
        if rate.syncs_per_s is not None:
            self.syncs += rate.syncs_per_s
            self.syncs_seen = True
        if rate.random_share is not None and reads > 0:
            self.random_num += rate.random_share * reads
            self.random_den += reads
        if rate.lower_bound:
            self.lower_bound = True
        if rate.blocks_read_per_s is not None:
            self.combined += 1
        self.blocks += reads if rate.blocks_read_per_s is None else rate.blocks_read_per_s

    def totals(self) -> RateTotals:
        """The sums as a typed row."""
        return RateTotals(
            files=self.files,
            size_bytes=self.size,
            files_size_unknown=self.size_unknown,
            read_iops=self.read_iops,
            read_mb_s=self.read_mb,
            write_iops=self.write_iops if self.writes_seen else None,
            write_mb_s=self.write_mb if self.write_mb_seen else None,
            files_writes_unknown=self.writes_unknown,
            syncs_per_s=self.syncs if self.syncs_seen else None,
            random_share=self.random_num / self.random_den if self.random_den > 0 else None,
            lower_bound=self.lower_bound,
            combined_files=self.combined,
            read_blocks_per_s=self.blocks,
        )


def sum_rates(rates: Iterable[FileRate], key: Callable[[FileRate], Key]) -> dict[Key, RateTotals]:
    """Rates summed per ``key(rate)``, groups in the order they are first met."""
    sums: dict[Key, RateSum] = {}
    for rate in rates:
        group = key(rate)
        acc = sums.get(group)
        if acc is None:
            acc = sums[group] = RateSum()
        acc.add(rate)
    return {group: acc.totals() for group, acc in sums.items()}


@dataclass(frozen=True, slots=True)
class TablespaceRates:
    """One row per tablespace and file kind: what ``advisor workload`` and ``fleet show`` list."""

    tablespace: str
    kind: str  # the files' kind: data, index, temp, wal, redo, undo, ...
    totals: RateTotals


def _by_tablespace(rate: FileRate) -> tuple[str, str]:
    return rate.tablespace, rate.kind


def tablespace_rates(rates: Iterable[FileRate]) -> list[TablespaceRates]:
    """Rates per (tablespace, file kind), busiest first (counted IOPS, then name and kind)."""
    rows = [TablespaceRates(tablespace, kind, totals)
            for (tablespace, kind), totals in sum_rates(rates, _by_tablespace).items()]
    rows.sort(key=lambda row: (-row.totals.counted_iops, row.tablespace, row.kind))
    return rows
