"""A fleet from real snapshots: collect a pair on a real PostgreSQL on a loop disk, derive the rest.

``real_pair`` starts PostgreSQL 18 with a hot tablespace on the inner partition and a cold
one on the outer partition of a real loop disk (GPT, ext4), collects snapshot A, reads the
hot table, and collects snapshot B, both with ``advisor collect`` (the real collectors,
host layout included). ``derive`` scales that pair into many instances x many snapshots:
each file's counters grow by its own real A→B increase times the instance's scale, its
mix between tablespaces, and a daily activity curve with an instance-specific busy hour;
the kernel's diskstats grow in proportion, so the engine's calibration sees a consistent
host. Identity, host and name differ per instance; the layout is the real one.

Used by tests/repo (a few instances) and benchmarks/fleet_bench.py.
"""

from __future__ import annotations

import datetime as dt
import math
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from advisor.model import DiskStat, FileIO, Snapshot, WaitProfile, load_snapshot

STEP_S = 900.0  # one snapshot every 15 minutes


def real_pair(root: Path) -> tuple[Snapshot, Snapshot]:
    """Two real snapshots of PostgreSQL 18 with tablespaces on a loop disk's outer and inner edge."""
    from tests.helpers.hotcold import hot_and_cold
    from tests.helpers.pagecache import evict

    with hot_and_cold(root, 256 << 20) as (_disk, pg, spaces):
        pg.restart()  # empty shared buffers: the scans below must read the files
        evict(spaces["hot"])
        evict(spaces["cold"])
        paths = [root / "a.json", root / "b.json"]
        _collect(pg.dsn, paths[0])
        pg.psql("SELECT count(*) FROM hot; SELECT count(*) FROM cold; SELECT count(*) FROM hot;")
        time.sleep(1.1)  # the backend's statistics reach the shared counters
        _collect(pg.dsn, paths[1])
    return load_snapshot(paths[0]), load_snapshot(paths[1])


def _collect(dsn: str, path: Path) -> None:
    from tests.helpers.cli import run_advisor

    done = run_advisor("collect", "--dsn", dsn, "-o", str(path))
    assert done.returncode == 0, done.stderr


def _grow(base: int | None, delta: int | None, factor: float) -> int | None:
    if base is None:
        return None
    return base + int(max(delta or 0, 0) * factor)


def _grow_ms(base: float | None, delta: float | None, factor: float) -> float | None:
    if base is None:
        return None
    return base + max(delta or 0.0, 0.0) * factor


def _file(a: FileIO, b: FileIO, factor: float) -> FileIO:
    return replace(
        a,
        reads=a.reads + int(max(b.reads - a.reads, 0) * factor),
        read_bytes=a.read_bytes + int(max(b.read_bytes - a.read_bytes, 0) * factor),
        writes=_grow(a.writes, None if b.writes is None or a.writes is None else b.writes - a.writes, factor),
        write_bytes=_grow(a.write_bytes, None if b.write_bytes is None or a.write_bytes is None
                          else b.write_bytes - a.write_bytes, factor),
        single_block_reads=_grow(a.single_block_reads, None if b.single_block_reads is None
                                 or a.single_block_reads is None else b.single_block_reads - a.single_block_reads,
                                 factor),
        read_time_ms=_grow_ms(a.read_time_ms, None if b.read_time_ms is None or a.read_time_ms is None
                              else b.read_time_ms - a.read_time_ms, factor),
    )


def _diskstat(a: DiskStat, b: DiskStat, factor: float) -> DiskStat:
    def grow(x: int, y: int) -> int:
        return x + int(max(y - x, 0) * factor)

    return replace(a, reads=grow(a.reads, b.reads), read_sectors=grow(a.read_sectors, b.read_sectors),
                   read_time_ms=grow(a.read_time_ms, b.read_time_ms), writes=grow(a.writes, b.writes),
                   write_sectors=grow(a.write_sectors, b.write_sectors),
                   write_time_ms=grow(a.write_time_ms, b.write_time_ms), io_time_ms=grow(a.io_time_ms, b.io_time_ms))


def _seconds(a: Snapshot, b: Snapshot) -> float:
    return (dt.datetime.fromisoformat(b.taken_at) - dt.datetime.fromisoformat(a.taken_at)).total_seconds()


def activity(instance: int, step: int) -> float:
    """Share of the base interval's IO done in one 15-minute step: a daily curve peaking at the
    instance's busy hour, never idle."""
    busy_hour = (instance * 7) % 24
    hour = (step * STEP_S / 3600.0) % 24
    return 0.2 + math.exp(-((hour - busy_hour + 12) % 24 - 12) ** 2 / 4.0)


def derive(a: Snapshot, b: Snapshot, instances: int, snapshots: int,
           start: dt.datetime | None = None) -> Iterator[tuple[int, list[Snapshot]]]:
    """Yield (instance number, its snapshots in time order) for a fleet derived from *a* → *b*."""
    begin = start or dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    after = {f.file_id: f for f in b.files}
    base_files = [(f, after[f.file_id]) for f in a.files if f.file_id in after]
    disks_b = {d.name: d for d in (b.layout.diskstats if b.layout else ())}
    per_step = STEP_S / max(_seconds(a, b), 1e-3)  # one step = the base interval's rates for 15 minutes
    for i in range(instances):
        scale = 0.5 + (i * 37 % 100) / 25.0  # 0.5x .. 4.5x the base interval per step
        hot_mix = 0.3 + (i * 53 % 100) / 100.0  # how much of the IO goes to the hot tablespace
        wait_share = 0.1 + (i * 29 % 80) / 100.0  # some instances are not IO bound
        server = replace(a.server, identity=f"{a.server.identity}{i:04d}", host=f"db{i:03d}.example.net",
                         name=f"db{i:03d}:5432")
        cumulative = 0.0
        series: list[Snapshot] = []
        for j in range(snapshots):
            factor = cumulative * scale * per_step
            files = tuple(_file(fa, fb, factor * (hot_mix if fa.tablespace == "hot" else 1.0))
                          for fa, fb in base_files)
            layout = a.layout
            if layout is not None:
                stats = tuple(_diskstat(d, disks_b[d.name], factor * (0.5 + hot_mix / 2)) if d.name in disks_b else d
                              for d in layout.diskstats)
                layout = replace(layout, diskstats=stats, hostname=server.host,
                                 diskstats_at_monotonic_s=(layout.diskstats_at_monotonic_s or 0.0) + j * STEP_S)
            taken = begin + dt.timedelta(seconds=j * STEP_S + i)
            series.append(replace(a, server=server, taken_at=taken.isoformat(), files=files, layout=layout,
                                  wait=WaitProfile(io_wait_share=round(wait_share, 3), samples=10,
                                                   source="derived")))
            cumulative += activity(i, j)
        yield i, series
