"""How much room temp and WAL need: the peak the counters and settings show, never one instant's files.

A snapshot sees the temp files that happen to exist when it runs: often none, so a temp
partition planned from them gets the minimum slot and the next reporting query fills it.
What the counters do show is how much was written to temp files during the interval
(PostgreSQL's ``pg_stat_database.temp_bytes``, Oracle's temp file writes): every temp file
that existed during the interval was written within it or was present at its start, so
the bytes written plus the bytes present bound the peak from above. ``collect --interval``
also samples the temp directories themselves (:mod:`advisor.collect.temp_watermark`): their
high-water mark is what they really held, which matters where the counters credit the
bytes to another tablespace (a per-role ``temp_tablespaces``). The area is planned at the
larger of the two figures it has (the plan's headroom comes on top); the plan says which
figure sized it, and when no directory was sampled, what would sample it. With neither
(nothing written to temp files in the interval, no directory sampled) the area keeps the
size the snapshot saw.

PostgreSQL's pg_wal likewise holds what one instant shows (often one or two segments) but
grows to ``max_wal_size`` between checkpoints, plus ``wal_keep_size`` kept for replicas:
the WAL area is planned for at least their sum when the snapshot states them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from advisor.engine.areas import Area
from advisor.engine.classify import Classified
from advisor.units import MIB


def _mib(nbytes: int) -> str:
    return f"{nbytes / MIB:,.1f} MiB"


def _wal_bound(settings: Mapping[str, str]) -> int | None:
    values = [settings.get(name, "") for name in ("max_wal_size_bytes", "wal_keep_size_bytes")]
    known = [int(v) for v in values if v.isdigit()]
    return sum(known) if known else None


def sized_for_peak(classified: Sequence[Classified], interval_s: float, settings: Mapping[str, str] | None = None,
                   capacity_bytes: int | None = None, headroom: float = 0.0,
                   high_water: Mapping[str, int] | None = None) -> tuple[list[Classified], list[str]]:
    """*classified* with each temp and WAL area's size raised to its peak bound, and a note per raised area.

    The bounds are upper bounds: when the areas with them (and the headroom) would not fit
    *capacity_bytes*, the sizes the snapshot measured are kept and a note says so, rather than
    refusing a plan for a peak the disk has evidently not needed.
    """
    raised, notes = _raised(classified, interval_s, settings or {}, high_water or {})
    if capacity_bytes is not None and notes:
        total = sum(c.area.size_bytes for c in raised) * (1.0 + headroom)
        if total > capacity_bytes:
            return list(classified), [f"temp and WAL planned from the sizes the snapshot measured: with their peak "
                                      f"bounds the areas would need {_mib(int(total))}, more than the disk's "
                                      f"{_mib(capacity_bytes)}"]
    return raised, notes


def _temp_peak(area: Area, interval_s: float, high_water: Mapping[str, int]) -> tuple[int | None, str]:
    """The temp area's peak (None: unknown) and the note that says which figure gave it."""
    counted = interval_s > 0 and area.write_mb_s > 0
    written = int(area.write_mb_s * MIB * interval_s) if counted else 0
    bound = area.size_bytes + written if counted else None
    marks = [high_water[p] for p in area.paths if p in high_water]
    mark = sum(marks) if marks else None
    if bound is None and mark is None:
        return None, ""  # nothing written to temp files in the interval, and no directory sampled: as the snapshot saw
    if mark is not None and (bound is None or mark > bound):
        return mark, (f"{area.name}: sized for {_mib(mark)}, the high-water mark of its temp directory sampled "
                      "during the interval" + (f" (above the {_mib(bound)} the temp_bytes counter gives: the counters "
                                               "credit some of its temp bytes elsewhere)" if bound is not None else
                                               " (no temp bytes were counted for it)") + ".")
    assert bound is not None
    sampled = (f"; the high-water mark sampled was {_mib(mark)}" if mark is not None else
               "; no high-water mark was sampled: `collect --interval` on the database host samples it")
    return bound, (f"{area.name}: sized for {_mib(bound)}, the {_mib(written)} written to temp files during the "
                   f"{interval_s:,.0f} s interval plus the {_mib(area.size_bytes)} present at the snapshot (the most "
                   f"its files can have held at once{sampled}), not only what one instant showed.")


def _raised(classified: Sequence[Classified], interval_s: float,
            settings: Mapping[str, str], high_water: Mapping[str, int]) -> tuple[list[Classified], list[str]]:
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
        if area.kind != "temp":
            out.append(c)
            continue
        peak, note = _temp_peak(area, interval_s, high_water)
        out.append(replace(c, area=replace(area, size_bytes=max(peak, area.size_bytes))) if peak is not None else c)
        notes += [note] if note else []
    return out, notes
