"""Oracle per-segment rates: counters over an interval -> :class:`SegmentRate`.

One place turns segment counters into rates, whatever their source: two live samples
(:func:`diff_segments`, called from ``workload.diff``), two AWR or Statspack snapshots in the
database, or the interval totals an AWR/Statspack report prints (:func:`totals_rate`).
A counter the source does not give stays None (unknown), never 0: reports list only the top N
segments of each statistic, so an absent figure is not a cold segment. Reads are in blocks and
requests; requests are preferred for IOPS, blocks are an upper bound on requests
(``from_blocks``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields, replace

from advisor.model import SegmentIO, SegmentRate
from advisor.rates.counters import counter_delta
from advisor.units import MIB

COUNTERS = (
    "physical_reads", "physical_read_requests", "physical_reads_direct", "physical_writes",
    "physical_write_requests", "physical_writes_direct", "segment_scans", "unoptimized_read_requests",
)
DEFAULT_BLOCK = 8192
_IDENTITY = tuple(f.name for f in fields(SegmentRate) if f.name in {g.name for g in fields(SegmentIO)}
                  and f.name not in COUNTERS)


def segment_id(container: str, owner: str | None, name: str | None, partition: str | None,
               object_id: int | str | None) -> str:
    """``<container>:<owner>.<name>[:<partition>]``, or ``<container>:obj#<n>`` for a dropped object."""
    if not name:
        return f"{container}:obj#{object_id}"
    return f"{container}:{owner}.{name}" + (f":{partition}" if partition else "")


def without_files(segments: Iterable[SegmentIO], known: set[tuple[str, str]]) -> list[str]:
    """``"TABLESPACE (container)"`` of each segment whose (tablespace, container) has no known file."""
    return sorted({f"{s.tablespace} ({s.container})" for s in segments if (s.tablespace, s.container) not in known})


def _per_s(value: int | None, seconds: float) -> float | None:
    return None if value is None else value / seconds


def _share(part: int | None, whole: int | None) -> float | None:
    if part is None or not whole:
        return None
    return min(1.0, part / whole)


def totals_rate(totals: SegmentIO, seconds: float, *, lower_bound: bool = False) -> SegmentRate:
    """Rates of a segment whose counters are interval totals (a delta or a report's figures)."""
    block = totals.block_size or DEFAULT_BLOCK
    read_requests, write_requests = totals.physical_read_requests, totals.physical_write_requests
    from_blocks = (read_requests is None and totals.physical_reads is not None) or (
        write_requests is None and totals.physical_writes is not None)
    reads = read_requests if read_requests is not None else totals.physical_reads
    writes = write_requests if write_requests is not None else totals.physical_writes
    identity = {name: getattr(totals, name) for name in _IDENTITY}
    return SegmentRate(
        **identity,
        read_iops=_per_s(reads, seconds),
        write_iops=_per_s(writes, seconds),
        read_mb_s=None if totals.physical_reads is None else totals.physical_reads * block / MIB / seconds,
        write_mb_s=None if totals.physical_writes is None else totals.physical_writes * block / MIB / seconds,
        direct_read_share=_share(totals.physical_reads_direct, totals.physical_reads),
        direct_write_share=_share(totals.physical_writes_direct, totals.physical_writes),
        scans_per_s=_per_s(totals.segment_scans, seconds),
        unoptimized_read_iops=_per_s(totals.unoptimized_read_requests, seconds),
        from_blocks=from_blocks,
        lower_bound=lower_bound,
    )


def delta(before: SegmentIO, after: SegmentIO) -> tuple[SegmentIO, bool]:
    """Counters of *after* minus *before*, and whether the segment's counters restarted.

    A segment's statistics restart together (truncate, move, instance restart): a new
    ``data_object_id``, or any counter going backwards (:func:`advisor.rates.counters.counter_delta`),
    means every counter of *after* counts since the restart, so each is its own delta (a
    lower bound), whatever order the counters are read in.
    """
    changes: dict[str, int | None] = {}
    reset = before.data_object_id is not None and before.data_object_id != after.data_object_id
    for name in COUNTERS:
        change, backwards = counter_delta(getattr(before, name), getattr(after, name))
        changes[name] = change
        reset = reset or backwards
    if reset:  # counted since the restart: the later reading, known even where the earlier one was not
        changes = {name: getattr(after, name) for name in COUNTERS}
    return with_counters(after, changes), reset


def with_counters(segment: SegmentIO, counters: Mapping[str, int | None]) -> SegmentIO:
    """*segment* with some of its :data:`COUNTERS` replaced (names checked, values typed)."""
    unknown = set(counters) - set(COUNTERS)
    if unknown:
        raise ValueError(f"not segment counters: {sorted(unknown)}")
    return replace(segment, **counters)  # type: ignore[arg-type]  # every COUNTERS field is int | None


def diff_segments(a: Sequence[SegmentIO], b: Sequence[SegmentIO],
                  seconds: float) -> tuple[tuple[SegmentRate, ...], tuple[str, ...]]:
    """Rates of every segment of sample *b*, and warnings naming the new, vanished and reset segments."""
    before = {s.segment_id: s for s in a}
    after_ids = {s.segment_id for s in b}
    rates, new, reset_ids = [], [], []
    for segment in b:
        if segment.segment_id in before:
            change, reset = delta(before[segment.segment_id], segment)
            if reset:
                reset_ids.append(segment.segment_id)
            rates.append(totals_rate(change, seconds, lower_bound=reset))
        else:
            new.append(segment.segment_id)
            rates.append(totals_rate(segment, seconds))
    gone = [s.segment_id for s in a if s.segment_id not in after_ids]
    warnings = []
    if new:
        warnings.append(f"segments first seen in the second sample, rated from zero (upper bounds): {_few(new)}")
    if gone:
        warnings.append(f"segments gone from the second sample (dropped, moved or aged out): {_few(gone)}")
    if reset_ids:
        warnings.append(f"segment counters restarted (truncate, move or restart) for: {_few(reset_ids)}; "
                        "their rates are lower bounds")
    return tuple(rates), tuple(warnings)


def _few(ids: list[str], limit: int = 5) -> str:
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return ", ".join(ids[:limit]) + more
