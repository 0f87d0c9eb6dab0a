"""What a collection will lack, said before the interval starts, with the fix.

``track_io_timing`` off used to show up ten minutes later as ``IO share of DB time: -`` and
latencies ``-``. The settings are in snapshot A, so the command can say at once which
figures will be unknown and how to turn the setting on, before any wait.
"""

from __future__ import annotations

from advisor.model import Snapshot
from advisor.rates.io_share import TIMING_ADVICE

ORACLE_TIMING_ADVICE = (
    "turn on timed statistics (ALTER SYSTEM SET timed_statistics = TRUE; it is on by default unless "
    "statistics_level is BASIC)"
)

LOST_WITHOUT = {
    "track_io_timing": "the IO share of DB time (the gate) and per-file read and write latencies will be unknown",
    "track_wal_io_timing": "WAL write and sync times will be unknown",
    "timed_statistics": "read and write times of every file will be unknown",
}


def _is_off(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ("off", "false", "0", "no")


def timing_warnings(snapshot: Snapshot) -> list[str]:
    """One line per timing setting that is off in *snapshot*: what will be unknown, and the fix."""
    settings = snapshot.server.settings
    names = ("track_io_timing", "track_wal_io_timing") if snapshot.server.dbms == "postgres" else ("timed_statistics",)
    lines = []
    for name in names:
        if not _is_off(settings.get(name)):
            continue
        fix = TIMING_ADVICE.get(name, ORACLE_TIMING_ADVICE)
        lines.append(f"{name} is off: {LOST_WITHOUT[name]}; {fix}")
    return lines
