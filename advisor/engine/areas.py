"""Group per-file rates into areas: the units that get placed on a disk.

A DBA moves tablespaces, the WAL/redo stream, temp, the archive/FRA and control files, not
individual 1 GB segments, so the optimizer works on areas. Grouping first also keeps the
optimizer's cost independent of the number of files (10 000 files are a few dozen areas).
Each area carries its IO rates and where its bytes are now (disk, partition, zone range),
taken from the host layout's locations of its files.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from advisor.model import FileRate, HostLayout, Location
from advisor.rates.areas import RateSum
from advisor.units import MIB, mean_kib_of_rates

AreaKind = Literal["tablespace", "wal", "temp", "archive", "control", "undo", "object"]


@dataclass(frozen=True, slots=True)
class Relation:
    """A named object of an area (table, index, datafile or log member) and where it lives."""

    container: str
    name: str
    kind: str
    partition: str | None = None  # Oracle partition of a segment
    parent: str | None = None  # Oracle: the table of an index or LOB segment (owner.table)


_KIND_OF_FILE: dict[str, AreaKind] = {
    "data": "tablespace",
    "index": "tablespace",
    "toast": "tablespace",
    "sequence": "tablespace",
    "other": "tablespace",
    "undo": "undo",
    "temp": "temp",
    "wal": "wal",
    "redo": "wal",
    "archive": "archive",
    "fra": "archive",
    "backup": "archive",
    "control": "control",
}

_FIXED_NAMES: dict[str, str] = {
    "wal": "WAL", "redo": "redo", "archive": "archive", "fra": "FRA", "backup": "archive", "control": "control",
}
"""Area names of the non-tablespace kinds, by file kind (Oracle's redo stays 'redo')."""


@dataclass(frozen=True, slots=True)
class Area:
    """A placeable unit: one tablespace, the WAL/redo, temp, archive/FRA or control files, or
    one object placed alone (:mod:`advisor.engine.hot_objects`; ``tablespace`` is where it is now).

    Rates are sums over the area's files (:mod:`advisor.rates.areas`); ``random_share`` and
    mean IO sizes are weighted by reads. ``size_bytes`` sums the files whose size is known;
    ``files_size_unknown`` counts the others (an imported report states none), so a plan can
    refuse instead of planning a tablespace as if it held nothing. Write rates are those
    counted: ``files_writes_unknown`` files (PostgreSQL relations, whose writes no counter
    sees) add none, so the physics places the IO the server measured and no more. Zone
    figures are fractions of the whole disk (0 = outer edge) or None when no file of the area
    could be located.
    """

    name: str
    kind: AreaKind
    tablespace: str | None
    size_bytes: int
    read_iops: float
    write_iops: float
    read_mb_s: float
    write_mb_s: float
    syncs_per_s: float
    random_share: float | None
    mean_read_kb: float | None
    mean_write_kb: float | None
    files: int
    paths: tuple[str, ...] = ()
    containers: tuple[str, ...] = ()
    relations: tuple[Relation, ...] = ()
    disk: str | None = None
    partition: str | None = None
    zone_start: float | None = None
    zone_end: float | None = None
    zone_mean: float | None = None
    placement_known: bool = True
    placement_reason: str | None = None
    disks: tuple[str, ...] = field(default_factory=tuple)
    files_size_unknown: int = 0
    files_writes_unknown: int = 0

    @property
    def iops(self) -> float:
        """Reads plus writes per second: what occupies the actuator."""
        return self.read_iops + self.write_iops

    @property
    def mb_s(self) -> float:
        """Megabytes per second read and written."""
        return self.read_mb_s + self.write_mb_s

    @property
    def visits_per_io(self) -> float | None:
        """Visits of the actuator to this area per IO of it, for WAL/redo; None otherwise.

        A commit writes its log record and flushes it before the transaction goes on, so
        each flush is one trip of the head to the log's band and back to the data, whatever
        the log's share of the IOs (see :func:`advisor.disk.predict.mixed_service_ms`). The
        flush rate is the visit rate; when the server does not count syncs, each write is
        taken as one. Other areas interleave at random (None).
        """
        if self.kind != "wal" or self.iops <= 0:
            return None
        visits = self.syncs_per_s if self.syncs_per_s > 0 else self.write_iops
        return min(1.0, visits / self.iops) if visits > 0 else None

    @property
    def mean_io_bytes(self) -> int:
        """Mean request size over reads and writes (8 KiB when nothing was measured)."""
        if self.iops <= 0:
            return 8192
        size = self.mb_s * MIB / self.iops  # the _mb_s fields are MiB/s
        return max(512, int(size))


class _Accumulator:
    """One area while the files are scanned: its rates (:class:`advisor.rates.areas.RateSum`, the
    one per-area sum) and where its files are (one pass, no sorting)."""

    __slots__ = ("kind", "tablespace", "sums", "paths", "containers", "relations", "zones", "disk_bytes",
                 "part_bytes", "unknown_reason")

    def __init__(self, kind: AreaKind, tablespace: str | None) -> None:
        self.kind = kind
        self.tablespace = tablespace
        self.sums = RateSum()
        self.paths: list[str] = []
        self.containers: dict[str, None] = {}
        self.relations: list[Relation] = []
        self.zones: dict[str, list[float]] = {}  # disk -> [weight, weighted sum, lowest, highest]
        self.disk_bytes: dict[str, int] = {}
        self.part_bytes: dict[str, int] = {}
        self.unknown_reason: str | None = None


def area_key(rate: FileRate) -> tuple[AreaKind, str]:
    """The area a file belongs to: its kind group plus, for table data, its tablespace."""
    kind = _KIND_OF_FILE.get(rate.kind, "tablespace")
    if rate.kind in _FIXED_NAMES:
        return kind, _FIXED_NAMES[rate.kind]
    return kind, rate.tablespace or kind


class LocationIndex:
    """Find the location of a path: exact match, then the nearest located parent directory.

    WAL, temp and archive areas are often located as directories, and data files inside a
    located tablespace directory share its partition; walking up the parents is O(depth).
    """

    def __init__(self, layout: HostLayout | None) -> None:
        self._by_path: dict[str, Location] = {}
        if layout is not None:
            for loc in layout.locations:
                self._by_path[loc.path] = loc
            for link, target in layout.mapped_paths.items():
                if target in self._by_path and link not in self._by_path:
                    self._by_path[link] = self._by_path[target]

    def find(self, path: str) -> Location | None:
        """The location of *path* or of its closest located ancestor."""
        probe = path
        while probe:
            loc = self._by_path.get(probe)
            if loc is not None:
                return loc
            parent = posixpath.dirname(probe)
            if parent == probe:
                return None
            probe = parent
        return None


def _add_location(acc: _Accumulator, loc: Location | None, size: int) -> None:
    if loc is None:
        return
    if not loc.placement_known:
        acc.unknown_reason = loc.reason or "placement not known"
        return
    if loc.zone_start is None or loc.zone_end is None:
        return
    weight = float(max(size, loc.size_bytes, 1))
    mean = loc.zone_mean if loc.zone_mean is not None else (loc.zone_start + loc.zone_end) / 2
    zone = acc.zones.setdefault(loc.disk or "", [0.0, 0.0, 2.0, -1.0])
    zone[0] += weight
    zone[1] += mean * weight
    zone[2] = min(zone[2], loc.zone_start)
    zone[3] = max(zone[3], loc.zone_end)
    if loc.disk:
        acc.disk_bytes[loc.disk] = acc.disk_bytes.get(loc.disk, 0) + int(weight)
    if loc.partition:
        acc.part_bytes[loc.partition] = acc.part_bytes.get(loc.partition, 0) + int(weight)


def _add_rate(acc: _Accumulator, rate: FileRate, index: LocationIndex) -> None:
    acc.sums.add(rate)
    if len(acc.paths) < 64:
        acc.paths.append(rate.path)
    acc.containers[rate.container] = None
    if rate.name and len(acc.relations) < 4096:
        acc.relations.append(Relation(rate.container, rate.name, rate.kind))
    _add_location(acc, index.find(rate.path), rate.size_bytes or 0)


def _freeze(name: str, acc: _Accumulator) -> Area:
    known = acc.unknown_reason is None
    disk = max(acc.disk_bytes, key=acc.disk_bytes.__getitem__) if acc.disk_bytes else None
    part = max(acc.part_bytes, key=acc.part_bytes.__getitem__) if acc.part_bytes else None
    zone = acc.zones.get(disk or "") if acc.zones else None
    if zone is None and acc.zones:
        zone = max(acc.zones.values(), key=lambda z: z[0])
    zone_mean = zone[1] / zone[0] if zone and zone[0] > 0 else None
    sums = acc.sums.totals()
    # the physics places the IO that was counted: uncounted writes (PostgreSQL relations) add
    # no load, and files_writes_unknown says how many files that is
    write_iops, write_mb = sums.write_iops or 0.0, sums.write_mb_s or 0.0
    return Area(
        name=name,
        kind=acc.kind,
        tablespace=acc.tablespace,
        size_bytes=sums.size_bytes,
        read_iops=sums.read_iops,
        write_iops=write_iops,
        read_mb_s=sums.read_mb_s,
        write_mb_s=write_mb,
        syncs_per_s=sums.syncs_per_s or 0.0,
        random_share=sums.random_share,
        mean_read_kb=sums.mean_read_kb,
        mean_write_kb=mean_kib_of_rates(write_mb, write_iops),
        files=sums.files,
        paths=tuple(acc.paths),
        containers=tuple(acc.containers),
        relations=tuple(acc.relations),
        disk=disk,
        partition=part,
        zone_start=zone[2] if zone else None,
        zone_end=zone[3] if zone else None,
        zone_mean=zone_mean,
        placement_known=known,
        placement_reason=acc.unknown_reason,
        disks=tuple(sorted(acc.disk_bytes)),
        files_size_unknown=sums.files_size_unknown,
        files_writes_unknown=sums.files_writes_unknown,
    )


def group_areas(
    rates: Iterable[FileRate], layout: HostLayout | None = None, objects: Mapping[str, str] | None = None
) -> list[Area]:
    """One pass over the files: sum rates per area and locate each area on its disk.

    *objects* maps the file ids of objects placed alone to their area names. Areas come back
    in descending IO order, so the hottest area is first everywhere.
    """
    index = LocationIndex(layout)
    accs: dict[tuple[AreaKind, str], _Accumulator] = {}
    alone = objects or {}
    for rate in rates:
        own = alone.get(rate.file_id)
        key: tuple[AreaKind, str] = ("object", own) if own else area_key(rate)
        acc = accs.get(key)
        if acc is None:
            tablespace = rate.tablespace if own else (None if key[0] in ("wal", "archive", "control") else key[1])
            acc = accs[key] = _Accumulator(key[0], tablespace)
        _add_rate(acc, rate, index)
    names = _unique_names(accs)
    areas = [_freeze(names[key], acc) for key, acc in accs.items()]
    areas.sort(key=lambda a: (-a.iops, -a.mb_s, a.name))
    return areas


def area_of_path(rates: Iterable[FileRate], objects: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each file's path -> the name :func:`group_areas` gives its area (a trace maps requests
    to files by path, and a replay needs the area of each file, not only 64 sample paths)."""
    alone = objects or {}
    keys: dict[str, tuple[AreaKind, str]] = {}
    for rate in rates:
        own = alone.get(rate.file_id)
        keys.setdefault(rate.path, ("object", own) if own else area_key(rate))
    names = _unique_names(dict.fromkeys(keys.values()))
    return {path: names[key] for path, key in keys.items()}


def _unique_names(accs: Mapping[tuple[AreaKind, str], object]) -> dict[tuple[AreaKind, str], str]:
    """Area names as users know them; a temp tablespace named like a data one gets a suffix."""
    taken: dict[str, int] = {}
    for _kind, label in accs:
        taken[label] = taken.get(label, 0) + 1
    return {(kind, label): (f"{label} ({kind})" if taken[label] > 1 else label) for kind, label in accs}


def area_labels(rates: Iterable[FileRate]) -> dict[tuple[AreaKind, str], str]:
    """Area name of every area key of *rates*, exactly as :func:`group_areas` names them."""
    return _unique_names(dict.fromkeys(area_key(r) for r in rates))
