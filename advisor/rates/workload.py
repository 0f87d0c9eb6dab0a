"""Rates between two snapshots of one server: ``diff(a, b) → Workload``.

Counters are only comparable when nothing reset them in between. The rules below decide,
per database kind, which change makes the interval meaningless (refuse with
:class:`StatsReset`, exit 9: collect again) and which only weakens it (a warning, and
``lower_bound`` on the affected files). They are one table so Oracle and PostgreSQL share
the same machinery; docs/collect.md lists them.

One snapshot alone is read the same way, as a diff against a zero baseline taken when the
server started (:func:`since_start`), so there is one way from counters to rates.

Units (:mod:`advisor.units`): IOPS are operations per second; MB/s use 1 MB = 1,048,576
bytes (as iostat does); mean IO sizes are KiB; latency is Δtime / Δcount in ms and None when
the server did not time the IO (never a false 0).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from advisor import __version__
from advisor.errors import BadInput, StatsReset
from advisor.model import DiskStatRate, FileIO, FileRate, HostLayout, Snapshot, WaitProfile, Workload
from advisor.model.snapshot import ResetRule
from advisor.rates.counters import counter_delta
from advisor.rates.io_share import cumulative_wait, interval_wait
from advisor.rates.patterns import bulk_reads, relation_write_mb_s, scans_between, with_scans
from advisor.rates.segments import COUNTERS, diff_segments, with_counters
from advisor.storage import diskstats as storage_diskstats
from advisor.units import DEFAULT_BLOCK_BYTES, mean_kib, mib_per_s


@dataclass(frozen=True, slots=True)
class Rule:
    """One reset/restart rule: what it compares and whether it refuses the interval."""

    name: ResetRule
    refuse: bool
    check: Callable[[Snapshot, Snapshot], str | None]  # a message when the rule fires


def _changed(label: str, before: str | None, after: str | None) -> str | None:
    if before == after:
        return None
    return f"{label} changed from {before or 'never'} to {after or 'never'}"


def _identity(a: Snapshot, b: Snapshot) -> str | None:
    return _changed("server identity", a.server.identity, b.server.identity)


def _started(a: Snapshot, b: Snapshot) -> str | None:
    return _changed("server start time", a.server.started_at, b.server.started_at)


def _instance(a: Snapshot, b: Snapshot) -> str | None:
    return _changed("instance", a.server.instance, b.server.instance)


def _recovery(a: Snapshot, b: Snapshot) -> str | None:
    if a.server.in_recovery == b.server.in_recovery:
        return None
    return f"recovery state changed from {a.server.in_recovery} to {b.server.in_recovery} (promotion or failover)"


def _reset_kinds(select: Callable[[str, Snapshot], bool]) -> Callable[[Snapshot, Snapshot], str | None]:
    def check(a: Snapshot, b: Snapshot) -> str | None:
        messages = []
        for kind in sorted(set(a.server.stats_reset) & set(b.server.stats_reset)):
            if not select(kind, b):
                continue
            message = _changed(f"stats_reset of {kind}", a.server.stats_reset[kind], b.server.stats_reset[kind])
            if message:
                messages.append(message)
        return "; ".join(messages) or None

    return check


def _feeds_files(kind: str, b: Snapshot) -> bool:
    """PostgreSQL reset kinds whose counters make up FileIO rows (refusing ones)."""
    if kind.startswith("database:") or kind in ("wal", "archiver"):
        return True
    return kind == "io" and b.server.major >= 18  # WAL IO comes from pg_stat_io on 18+


def _views_only(kind: str, b: Snapshot) -> bool:
    return not _feeds_files(kind, b)


RULES: dict[str, tuple[Rule, ...]] = {
    "postgres": (
        Rule("identity", True, _identity),
        Rule("recovery", True, _recovery),
        Rule("stats-reset", True, _reset_kinds(_feeds_files)),
        Rule("stats-reset-views", False, _reset_kinds(_views_only)),
        Rule("restart", False, _started),
    ),
    "oracle": (
        Rule("identity", True, _identity),
        Rule("instance", True, _instance),
        Rule("restart", True, _started),
    ),
}
"""Per dbms: the rules in the order they are checked (see docs/collect.md)."""

NEW_FILES_FROM_ZERO: dict[str, frozenset[str]] = {
    "postgres": frozenset({"data", "index", "toast", "sequence"}),
}
"""File kinds whose absence from snapshot A proves a zero baseline, per dbms.

A PostgreSQL relation is missing from a snapshot only when it was empty and never read, or
did not exist yet; a new relation's counters start at zero. Either way its baseline is 0, as
long as its database was visited in A (a skipped database would otherwise look all new).
Oracle rows are not assumed: a missing file there is not rated.
"""

TIMING_SETTINGS = {
    "postgres": ("track_io_timing", "track_wal_io_timing"),
    "oracle": ("timed_statistics",),
}


def _parse_time(text: str, what: str) -> dt.datetime:
    try:
        value = dt.datetime.fromisoformat(text)
    except ValueError:
        raise BadInput(f"{what} has an invalid timestamp {text!r}") from None
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _check_rules(a: Snapshot, b: Snapshot, allow_reset: bool,
                 always_refuse: Collection[str]) -> tuple[list[str], list[ResetRule]]:
    """The warning of every rule that fired and the rules' codes (the codes are what code decides by)."""
    warnings: list[str] = []
    fired: list[ResetRule] = []
    for rule in RULES.get(b.server.dbms, ()):
        message = rule.check(a, b)
        if message is None:
            continue
        if rule.refuse and (not allow_reset or rule.name in always_refuse):
            raise StatsReset(
                f"rule {rule.name}: {message} between {a.taken_at} and {b.taken_at}",
                hint="the interval's counters are not comparable; collect again",
            )
        warnings.append(f"{rule.name}: {message}")
        fired.append(rule.name)
    return warnings, fired


def _per(value: float | None, seconds: float) -> float | None:
    return None if value is None else value / seconds


def _ratio(num: float | None, den: int | None) -> float | None:
    if num is None or not den:
        return None
    return num / den


def file_rate(a: FileIO, b: FileIO, seconds: float, timing: bool) -> FileRate:
    """Rates of one file between two samples of its counters."""
    reads, back_r = counter_delta(a.reads, b.reads)
    writes, back_w = counter_delta(a.writes, b.writes)
    read_bytes, back_rb = counter_delta(a.read_bytes, b.read_bytes)
    if a.collector_reads and reads and read_bytes is not None and not back_r:  # the collector's own, at A
        own = min(a.collector_reads, reads)
        read_bytes -= read_bytes * own // reads
        reads -= own
    write_bytes, back_wb = counter_delta(a.write_bytes, b.write_bytes)
    single, _ = counter_delta(a.single_block_reads, b.single_block_reads)
    syncs, _ = counter_delta(a.syncs, b.syncs)
    read_time = counter_delta(a.read_time_ms, b.read_time_ms)[0] if timing else None
    write_time = counter_delta(a.write_time_ms, b.write_time_ms)[0] if timing else None
    # Positional: this runs once per file (100,000 per diff).
    return FileRate(
        b.file_id,
        b.path,
        b.kind,
        b.tablespace,
        b.container,
        b.size_bytes,
        (reads or 0) / seconds,
        _per(writes, seconds),
        mib_per_s(read_bytes or 0, seconds),
        None if write_bytes is None else mib_per_s(write_bytes, seconds),
        mean_kib(read_bytes, reads),
        mean_kib(write_bytes, writes),
        _ratio(single, reads),  # random share
        _ratio(read_time, reads),  # read latency
        _ratio(write_time, writes),  # write latency
        _per(syncs, seconds),
        b.name,
        back_r or back_w or back_rb or back_wb,  # lower bound
        b.parent,
    )


def _zero_int(value: int | None) -> int | None:
    return None if value is None else 0


def _zero_float(value: float | None) -> float | None:
    return None if value is None else 0.0


def zero_baseline(file: FileIO) -> FileIO:
    """The same file with every counter it has at zero (unknown counters stay unknown).

    Positional through the fast constructor, not ``dataclasses.replace``: one per file of a
    snapshot read alone (100,000 on a large cluster).
    """
    return FileIO(
        file.file_id, file.path, file.kind, file.tablespace, file.container, file.size_bytes,
        0, _zero_int(file.writes), 0, _zero_int(file.write_bytes), _zero_int(file.single_block_reads),
        _zero_float(file.read_time_ms), _zero_float(file.write_time_ms), _zero_int(file.syncs),
        _zero_float(file.sync_time_ms), file.name, file.segment_paths, file.parent, _zero_int(file.scans),
    )


def diskstat_rates(a: HostLayout | None, b: HostLayout | None, seconds: float) -> tuple[DiskStatRate, ...]:
    """iostat -x figures per disk and partition from the two snapshots' /proc/diskstats readings.

    The host's own monotonic clock between the readings is preferred over the snapshots'
    wall-clock interval when both come from the same host.
    """
    if a is None or b is None or not a.diskstats or not b.diskstats:
        return ()
    if a.diskstats_at_monotonic_s is not None and b.diskstats_at_monotonic_s is not None and a.hostname == b.hostname:
        measured = b.diskstats_at_monotonic_s - a.diskstats_at_monotonic_s
        if measured > 0:
            seconds = measured
    partitions = {p.name for p in b.partitions if p.number > 0}
    rows = [replace(d, is_partition=d.is_partition or d.name in partitions) for d in b.diskstats]
    return tuple(storage_diskstats.diskstats_rates(a.diskstats, rows, seconds))


def diff(a: Snapshot, b: Snapshot, *, allow_reset: bool = False, always_refuse: Collection[str] = ()) -> Workload:
    """Rates from snapshot *a* to the later snapshot *b* of the same server.

    Raises :class:`StatsReset` when a refusing rule fires (unless *allow_reset*, which turns
    them into warnings, except the rules named in *always_refuse*: ``("identity",)`` accepts
    resets but never two different servers) and :class:`BadInput` for snapshots of different
    kinds or out of order.
    """
    if a.server.dbms != b.server.dbms:
        raise BadInput(f"snapshots are of different database kinds ({a.server.dbms} and {b.server.dbms})")
    start, end = _parse_time(a.taken_at, "snapshot A"), _parse_time(b.taken_at, "snapshot B")
    seconds = (end - start).total_seconds()
    if seconds <= 0:
        raise BadInput(f"snapshot B ({b.taken_at}) is not later than snapshot A ({a.taken_at}); pass them in order")
    warnings, resets = _check_rules(a, b, allow_reset, always_refuse)
    timing = True
    for name in TIMING_SETTINGS.get(b.server.dbms, ()):
        if a.server.settings.get(name) != b.server.settings.get(name):
            timing = False
            warnings.append(
                f"timing: {name} changed from {a.server.settings.get(name)} to {b.server.settings.get(name)}; "
                "latencies dropped"
            )
    before = {f.file_id: f for f in a.files}
    after_ids = {f.file_id for f in b.files}
    from_zero = NEW_FILES_FROM_ZERO.get(b.server.dbms, frozenset())
    seen_containers = {f.container for f in a.files}
    rates, new, zero_based = [], [], []
    for file in b.files:
        if file.file_id in before:
            rates.append(file_rate(before[file.file_id], file, seconds, timing))
        elif file.kind in from_zero and file.container in seen_containers:
            rates.append(file_rate(zero_baseline(file), file, seconds, timing))
            zero_based.append(file.file_id)
        else:
            new.append(file.file_id)
    gone = [f.file_id for f in a.files if f.file_id not in after_ids]
    if zero_based:
        warnings.append(f"new files rated from zero (created or first read during the interval): {_sample(zero_based)}")
    if new:
        warnings.append(f"new files without a baseline (not rated): {_sample(new)}")
    if gone:
        warnings.append(f"files vanished during the interval: {_sample(gone)}")
    backwards = [r.file_id for r in rates if r.lower_bound]
    if backwards:
        warnings.append(f"counters went backwards (reset) for: {_sample(backwards)}; their rates are lower bounds")
    segments, segment_warnings = diff_segments(a.segments, b.segments, seconds)
    patterned, pattern_warnings = _with_patterns(a, b, rates, seconds)
    warnings.extend(pattern_warnings)
    return Workload(
        server=b.server,
        started_at=a.taken_at,
        ended_at=b.taken_at,
        interval_s=seconds,
        rates=patterned,
        wait=interval_wait(a, b, cumulative_wait(a.wait, b.wait)),
        layout=b.layout,
        diskstats=diskstat_rates(a.layout, b.layout, seconds),
        segments=segments,
        warnings=(*warnings, *segment_warnings),
        source="snapshots",
        tool_version=__version__,
        relation_write_mb_s=relation_write_mb_s(a, b, seconds) if b.server.dbms == "postgres" else None,
        resets=tuple(resets),
    )


def _with_patterns(a: Snapshot, b: Snapshot, rates: list[FileRate],
                   seconds: float) -> tuple[tuple[FileRate, ...], list[str]]:
    """PostgreSQL: the scanned tables' sequential reads from pg_stat_io (:mod:`advisor.rates.patterns`)."""
    if b.server.dbms != "postgres":
        return tuple(rates), []
    setting = b.server.settings.get("block_size", "")
    block_size = int(setting) if setting.isdigit() and int(setting) > 0 else DEFAULT_BLOCK_BYTES
    return with_scans(rates, scans_between(a, b), bulk_reads(a, b, block_size), seconds, block_size)


def _sample(ids: list[str], limit: int = 5) -> str:
    shown = ", ".join(ids[:limit])
    return f"{shown} and {len(ids) - limit} more ({len(ids)} in all)" if len(ids) > limit else shown


SINCE_START_WARNING = "rates are averages since the server started"


def zero_snapshot(snapshot: Snapshot, taken_at: str) -> Snapshot:
    """The baseline of a server at *taken_at*: the same files and server, every counter at zero.

    No host layout: the kernel's diskstats count since boot, not since the server started.
    """
    files = tuple([zero_baseline(f) for f in snapshot.files])
    segments = tuple(with_counters(s, {c: None if getattr(s, c) is None else 0 for c in COUNTERS})
                     for s in snapshot.segments)
    return replace(snapshot, taken_at=taken_at, files=files, layout=None, wait=WaitProfile(), runs=(), views={},
                   warnings=(), segments=segments)


def _start_of(snapshot: Snapshot) -> str:
    """When the counters began: the server's start, or one second before the snapshot when that
    is unknown, unreadable or not earlier (as a 1 s floor keeps rates finite)."""
    end = _parse_time(snapshot.taken_at, "the snapshot")
    try:
        start = _parse_time(snapshot.server.started_at, "the server start")
    except BadInput:
        start = end
    if (end - start).total_seconds() < 1.0:
        start = end - dt.timedelta(seconds=1)
    return start.isoformat()


def since_start(snapshot: Snapshot) -> Workload:
    """One snapshot as a workload: a diff against a zero baseline at the server's start.

    Absolute rates are averages over the whole uptime; shares (which area takes which part
    of the IO) are exact. The units and rules are those of :func:`diff`. Building the zero
    baseline makes it 1.1-1.7 times a plain diff of the same files (benchmarks/rates_bench.py,
    10,000 and 100,000 files, load 7-13 on 2 cores).
    """
    workload = diff(zero_snapshot(snapshot, _start_of(snapshot)), snapshot)
    return replace(workload, warnings=snapshot.warnings + workload.warnings + (SINCE_START_WARNING,),
                   source="snapshot")

