"""How much room temp and WAL need: the peak the counters and settings show, never one instant's files.

A snapshot sees the temp files that happen to exist when it runs: often none, so a temp
partition planned from them gets the minimum slot and the next reporting query fills it.
What the counters do show is how much was written to temp files during the interval
(PostgreSQL's ``pg_stat_database.temp_bytes``, Oracle's temp file writes): every temp file
that existed during the interval was written within it or was present at its start, so
the bytes written plus the bytes present bound the peak from above. The area is planned at
that bound (the plan's headroom comes on top); the plan says so with both figures.

PostgreSQL's pg_wal likewise holds what one instant shows (often one or two segments) but
grows to ``max_wal_size`` between checkpoints, plus ``wal_keep_size`` kept for replicas:
the WAL area is planned for at least their sum when the snapshot states them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from advisor.engine.classify import Classified
from advisor.units import MIB


def _mib(nbytes: int) -> str:
    return f"{nbytes / MIB:,.1f} MiB"


def _wal_bound(settings: Mapping[str, str]) -> int | None:
    values = [settings.get(name, "") for name in ("max_wal_size_bytes", "wal_keep_size_bytes")]
    known = [int(v) for v in values if v.isdigit()]
    return sum(known) if known else None


def sized_for_peak(classified: Sequence[Classified], interval_s: float, settings: Mapping[str, str] | None = None,
                   capacity_bytes: int | None = None, headroom: float = 0.0) -> tuple[list[Classified], list[str]]:
    """*classified* with each temp and WAL area's size raised to its peak bound, and a note per raised area.

    The bounds are upper bounds: when the areas with them (and the headroom) would not fit
    *capacity_bytes*, the sizes the snapshot measured are kept and a note says so, rather than
    refusing a plan for a peak the disk has evidently not needed.
    """
    raised, notes = _raised(classified, interval_s, settings or {})
    if capacity_bytes is not None and notes:
        total = sum(c.area.size_bytes for c in raised) * (1.0 + headroom)
        if total > capacity_bytes:
            return list(classified), [f"temp and WAL planned from the sizes the snapshot measured: with their peak "
                                      f"bounds the areas would need {_mib(int(total))}, more than the disk's "
                                      f"{_mib(capacity_bytes)}"]
    return raised, notes


def _raised(classified: Sequence[Classified], interval_s: float,
            settings: Mapping[str, str]) -> tuple[list[Classified], list[str]]:
    out: list[Classified] = []
    notes: list[str] = []
    wal_bound = _wal_bound(settings)
    for c in classified:
        area = c.area
        if area.kind == "wal" and wal_bound is not None and wal_bound > area.size_bytes:
            out.append(replace(c, area=replace(area, size_bytes=wal_bound)))
            notes.append(f"{area.name}: sized for {_mib(wal_bound)}, what max_wal_size and wal_keep_size let "
                         f"pg_wal hold, not the {_mib(area.size_bytes)} present at the snapshot.")
            continue
        if area.kind != "temp" or interval_s <= 0 or area.write_mb_s <= 0:
            out.append(c)
            continue
        written = int(area.write_mb_s * MIB * interval_s)
        peak = area.size_bytes + written
        out.append(replace(c, area=replace(area, size_bytes=peak)))
        notes.append(f"{area.name}: sized for {_mib(peak)}, the {_mib(written)} written to temp files during the "
                     f"{interval_s:,.0f} s interval plus the {_mib(area.size_bytes)} present at the snapshot "
                     "(the most its files can have held at once), not only what one instant showed.")
    return out, notes
