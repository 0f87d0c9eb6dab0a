"""The IO share of DB time, in one place: PostgreSQL's counters, Oracle's DB time, a report's figures.

:func:`time_share` is the share itself (IO time over DB time of one interval), for every source:
a report import states both times for its interval and its share is read as stated.
:func:`interval_times` turns cumulative times (Oracle's DB time and foreground IO waits, live
from V$ or recorded by Statspack/AWR) into the interval's by the one reset rule of
:mod:`advisor.rates.counters`: a time that went backwards was reset, the later reading is what
passed since, and a note says so (never a negative time, never a silent None).

PostgreSQL's share comes from its cumulative counters, for any pair of snapshots.

The response-time gate (:mod:`advisor.engine.gate`) needs the share of the database's time
spent in IO. Sampling ``pg_stat_activity`` answers it only while advisor watches the
interval; the cumulative counters answer it for two snapshots taken at any time, live or
saved, because every snapshot already records the views they live in:

* DB time: ``pg_stat_database.active_time`` (14+, ms in state active or fastpath), summed
  over databases. It counts client sessions only.
* IO time, data files: on 16+ the ``client backend`` rows of ``pg_stat_io`` (read, write,
  extend, writeback and fsync time; the same sessions as active_time); before 16
  ``pg_stat_database.blk_read_time + blk_write_time`` (every backend of the database,
  autovacuum included, so an upper bound). Both need ``track_io_timing``.
* IO time, WAL: ``pg_stat_wal.wal_write_time + wal_sync_time`` on 14-17 (every process that
  writes WAL, the WAL writer included), the ``client backend`` WAL rows of ``pg_stat_io`` on
  18. Both need ``track_wal_io_timing``.

When a setting is off the share is not made up: the profile says which setting to turn on
and what it costs, and the gate falls back to the sampled share. When both exist the gate
uses the counters (the whole interval, every session) and the sampled share is kept beside
it. docs/collect.md shows the output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from advisor.model import Snapshot, WaitProfile
from advisor.rates.counters import counter_delta

TIMING_ADVICE = {
    "track_io_timing": (
        "turn on track_io_timing (ALTER SYSTEM SET track_io_timing = on; SELECT pg_reload_conf(); as a superuser): "
        "it reads the clock around each data-file read and write, well under 1 % of CPU on a TSC clock source "
        "(pg_test_timing: under 100 ns per loop is fine)"
    ),
    "track_wal_io_timing": (
        "turn on track_wal_io_timing (ALTER SYSTEM SET track_wal_io_timing = on; SELECT pg_reload_conf()): "
        "it reads the clock around each WAL write and fsync, a cost that is negligible next to an fsync on a disk"
    ),
}
"""Per timing setting: how to turn it on and what it costs (printed when it is off)."""

VIEWS_READ = ("pg_stat_database", "pg_stat_io", "pg_stat_wal")
"""The snapshot views the counters' share is computed from (a reader that trims views keeps these)."""

COUNTER_SOURCE = "counters"
SAMPLED_SOURCE = "pg_stat_activity"

Row = Mapping[str, object]
IO_TIME_COLUMNS = {
    "data reads": ("read_time",),
    "data writes": ("write_time", "extend_time", "writeback_time", "fsync_time"),
}
"""pg_stat_io time columns (ms) of relation rows, grouped as the share's parts."""


@dataclass(frozen=True, slots=True)
class CounterShare:
    """DB time and IO time over an interval, from cumulative counters (seconds)."""

    db_time_s: float
    io_time_s: float
    parts_s: dict[str, float]

    @property
    def share(self) -> float:
        """IO time over DB time, at most 1 (background IO can exceed client time before 16)."""
        return min(1.0, self.io_time_s / self.db_time_s)


RESET_NOTE = ("DB time or IO wait time went backwards between the samples (an instance restart or a statistics "
              "reset): the share counts the time since the reset")


def time_share(db_time_s: float | None, io_time_s: float | None) -> float | None:
    """IO time over DB time of one interval; None when either is unknown or no DB time passed.

    >>> time_share(100.0, 25.0), time_share(0.0, 0.0), time_share(10.0, None)
    (0.25, None, None)
    """
    return io_time_s / db_time_s if db_time_s and io_time_s is not None else None


def interval_times(db_before: float | None, db_after: float | None, io_before: float | None,
                   io_after: float | None) -> tuple[float | None, float | None, bool]:
    """``(DB time, IO time, reset)`` of an interval from cumulative readings, by the counters' reset rule.

    >>> interval_times(100.0, 160.0, 10.0, 25.0), interval_times(100.0, 40.0, 10.0, 4.0)
    ((60.0, 15.0, False), (40.0, 4.0, True))
    """
    db_time, db_reset = counter_delta(db_before, db_after)
    io_time, io_reset = counter_delta(io_before, io_after)
    return db_time, io_time, db_reset or io_reset


def cumulative_wait(a: WaitProfile, b: WaitProfile) -> WaitProfile:
    """The interval's profile from two cumulative ones (Oracle live DB time); sampled ones come from *b*."""
    if a.db_time_s is None or b.db_time_s is None or a.io_wait_s is None or b.io_wait_s is None:
        return b
    db_time, io_time, reset = interval_times(a.db_time_s, b.db_time_s, a.io_wait_s, b.io_wait_s)
    notes = (*b.notes, RESET_NOTE) if reset else b.notes
    return replace(b, io_wait_share=time_share(db_time, io_time), db_time_s=db_time, io_wait_s=io_time, notes=notes)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _summed(rows: Iterable[Row], columns: Iterable[str]) -> float | None:
    """Sum of *columns* over *rows*; NULL cells are 0 (impossible ops), a missing column None."""
    total = 0.0
    seen = False
    for row in rows:
        for column in columns:
            if column not in row:
                return None
            total += _number(row[column]) or 0.0
            seen = True
    return total if seen else None


def _per_database(snapshot: Snapshot, column: str) -> dict[str, float]:
    values = {}
    for row in snapshot.views.get("pg_stat_database", []):
        value = _number(row.get(column))
        if value is not None:
            values[str(row.get("datname"))] = value
    return values


def _database_delta(a: Snapshot, b: Snapshot, column: str) -> float | None:
    """Δ of a pg_stat_database column summed over the databases present in both snapshots."""
    before, after = _per_database(a, column), _per_database(b, column)
    common = set(before) & set(after)
    if not common:
        return None
    return sum(counter_delta(before[name], after[name])[0] or 0.0 for name in common)


def _client_io(snapshot: Snapshot, objects: tuple[str, ...], columns: Iterable[str]) -> float | None:
    rows = [
        r for r in snapshot.views.get("pg_stat_io", [])
        if r.get("backend_type") == "client backend" and r.get("object") in objects
    ]
    return _summed(rows, tuple(columns))


def _view_delta(a: Snapshot, b: Snapshot, read: Callable[[Snapshot], float | None]) -> float | None:
    return counter_delta(read(a), read(b))[0]


def _setting_on(a: Snapshot, b: Snapshot, name: str) -> bool:
    return a.server.settings.get(name) == "on" and b.server.settings.get(name) == "on"


def _data_parts(a: Snapshot, b: Snapshot) -> dict[str, float | None]:
    if b.server.major >= 16 and a.views.get("pg_stat_io") and b.views.get("pg_stat_io"):
        objects = ("relation", "temp relation")
        return {
            part: counter_delta(_client_io(a, objects, columns), _client_io(b, objects, columns))[0]
            for part, columns in IO_TIME_COLUMNS.items()
        }
    return {
        "data reads": _database_delta(a, b, "blk_read_time"),
        "data writes": _database_delta(a, b, "blk_write_time"),
    }


def _wal_part(a: Snapshot, b: Snapshot) -> float | None:
    if b.server.major >= 18:
        return _view_delta(a, b, lambda s: _client_io(s, ("wal",), ("read_time", "write_time", "fsync_time")))
    return _view_delta(a, b, lambda s: _summed(s.views.get("pg_stat_wal", []), ("wal_write_time", "wal_sync_time")))


def counter_share(a: Snapshot, b: Snapshot) -> tuple[CounterShare | None, list[str]]:
    """The counters' IO share from *a* to *b*, or None with the reason; notes either way."""
    notes: list[str] = []
    db_time_ms = _database_delta(a, b, "active_time")
    if db_time_ms is None:
        return None, ["IO share from counters unavailable: the snapshots carry no pg_stat_database.active_time "
                      "(it needs PostgreSQL 14 or later and snapshots taken by this version of advisor)"]
    if not _setting_on(a, b, "track_io_timing"):
        return None, [f"IO share from counters unavailable: track_io_timing is off; {TIMING_ADVICE['track_io_timing']}"]
    if db_time_ms <= 0:
        return None, ["IO share from counters unavailable: no client session was active during the interval"]
    parts = {name: value for name, value in _data_parts(a, b).items() if value is not None}
    if not parts:
        return None, ["IO share from counters unavailable: the snapshots carry no IO time counters"]
    if _setting_on(a, b, "track_wal_io_timing"):
        wal = _wal_part(a, b)
        if wal is not None:
            parts["WAL write+sync"] = wal
    else:
        notes.append(f"WAL write and sync time not counted: track_wal_io_timing is off; "
                     f"{TIMING_ADVICE['track_wal_io_timing']}")
    if b.server.major < 16:
        notes.append("before PostgreSQL 16 the IO time counts every backend (autovacuum too), "
                     "so the share from counters is an upper bound")
    io_ms = sum(parts.values())
    if io_ms > db_time_ms:
        notes.append(f"IO time {io_ms / 1000:.1f} s exceeds client active time {db_time_ms / 1000:.1f} s "
                     "(background processes' IO): share capped at 100 %")
    return CounterShare(db_time_ms / 1000, io_ms / 1000, {k: v / 1000 for k, v in parts.items()}), notes


def interval_wait(a: Snapshot, b: Snapshot, diffed: WaitProfile) -> WaitProfile:
    """*diffed* (the sampled or Oracle profile of the interval) with the counters' share added.

    The one hook :func:`advisor.rates.workload.diff` calls. Counters win the gate when they exist;
    the sampled share stays beside them.
    """
    if b.server.dbms != "postgres":
        return diffed
    sampled = diffed.io_wait_share if diffed.samples else None
    counters, notes = counter_share(a, b)
    if counters is None:
        if sampled is not None:
            notes.append("the gate uses the sampled share (pg_stat_activity)")
        return replace(diffed, sampled_io_wait_share=sampled, notes=tuple(notes),
                       source=SAMPLED_SOURCE if sampled is not None else diffed.source)
    return replace(
        diffed,
        io_wait_share=counters.share,
        counter_io_wait_share=counters.share,
        sampled_io_wait_share=sampled,
        db_time_s=round(counters.db_time_s, 3),
        io_wait_s=round(counters.io_time_s, 3),
        io_time_parts_s={k: round(v, 3) for k, v in counters.parts_s.items()},
        source=COUNTER_SOURCE,
        notes=tuple(notes),
    )


def describe(wait: WaitProfile) -> list[str]:
    """Lines that say what the IO share is, from where, and which one the gate used."""
    lines = []
    if wait.counter_io_wait_share is not None:
        parts = ", ".join(f"{name} {value:,.1f} s" for name, value in wait.io_time_parts_s.items())
        lines.append(
            f"IO share of DB time from counters: {wait.counter_io_wait_share:.0%} "
            f"({wait.io_wait_s or 0:,.1f} s IO of {wait.db_time_s or 0:,.1f} s active: {parts})"
        )
    if wait.sampled_io_wait_share is not None:
        lines.append(f"IO share of DB time sampled from pg_stat_activity: {wait.sampled_io_wait_share:.0%} "
                     f"({wait.samples} samples)")
    if wait.counter_io_wait_share is not None and wait.sampled_io_wait_share is not None:
        lines.append("the gate uses the share from counters (the whole interval, every session)")
    lines.extend(wait.notes)
    return lines
