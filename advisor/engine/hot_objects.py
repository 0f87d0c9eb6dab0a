"""Objects placed alone: a hot relation or segment that should not wait for its tablespace.

A tablespace is the usual unit of placement, but a hot 2 GB index inside a 200 GB
tablespace can only reach the outer edge today by taking the other 198 GB with it, and the
zone model charges every IO of an area for the width of the band the area occupies. An
object is split out of its tablespace into an area of its own when the split gives the
optimizer something the tablespace cannot:

* it carries at least ``OBJECT_MIN_IO_SHARE`` of its tablespace's IOs (moving it moves the
  IO that matters),
* its IO density (IOs per second per byte) is at least ``OBJECT_DENSITY_FACTOR`` times the
  rest of the tablespace's (so the two belong to different bands of the disk), and
* it is at most ``OBJECT_MAX_SIZE_SHARE`` of the tablespace's bytes (otherwise moving the
  object is moving most of the tablespace: the tablespace move is simpler and as good).

PostgreSQL objects are a table with its indexes and TOAST that live in the same tablespace
(``FileRate.parent`` links an index or TOAST relation to its table); Oracle objects are the
segments (or partitions) of ``Workload.segments``, whose IO is part of their tablespace's
datafiles' IO and is taken out of it. Absent segments (a report's top-N list) are never
taken for cold: only listed ones are split. docs/plan.md explains the rule with an example.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from advisor.engine.areas import Area, AreaKind, Relation, area_key, group_areas
from advisor.model import FileRate, HostLayout, SegmentRate
from advisor.units import MIB, mean_kib_of_rates

OBJECT_MIN_IO_SHARE = 0.25
OBJECT_DENSITY_FACTOR = 4.0
OBJECT_MAX_SIZE_SHARE = 0.5
MAX_OBJECTS_PER_TABLESPACE = 3
MAX_OBJECTS = 12
"""At most this many objects are split out in all (the optimizer's cost grows with areas)."""

RELATION_KINDS = frozenset({"data", "index", "toast"})
SYSTEM_SCHEMAS = ("pg_catalog.", "pg_toast.", "information_schema.")
"""Catalogs cannot be moved on their own (and pg_global not at all): never placed alone."""


def worth_alone(object_iops: float, object_bytes: int, tablespace_iops: float, tablespace_bytes: int) -> bool:
    """Whether an object should be placed apart from the rest of its tablespace (rule above)."""
    if tablespace_iops <= 0 or object_iops < OBJECT_MIN_IO_SHARE * tablespace_iops:
        return False
    rest_bytes = tablespace_bytes - object_bytes
    if rest_bytes <= 0 or object_bytes > OBJECT_MAX_SIZE_SHARE * tablespace_bytes:
        return False
    rest_iops = max(tablespace_iops - object_iops, 0.0)
    return object_iops / max(object_bytes, MIB) >= OBJECT_DENSITY_FACTOR * rest_iops / rest_bytes


def object_label(container: str, name: str, partition: str | None = None) -> str:
    """Area name of an object: ``<container>:<name>[:<partition>]``."""
    return f"{container}:{name}" + (f":{partition}" if partition else "")


@dataclass
class _Totals:
    iops: float = 0.0
    size: int = 0
    name: str | None = None
    members: list[str] = field(default_factory=list)


def relation_objects(rates: Sequence[FileRate]) -> dict[str, str]:
    """file_id → object area name for the PostgreSQL relations worth placing alone."""
    spaces: dict[tuple[AreaKind, str], _Totals] = {}
    objects: dict[tuple[tuple[AreaKind, str], str], _Totals] = {}
    for rate in rates:
        key = area_key(rate)
        space = spaces.setdefault(key, _Totals())
        iops = rate.read_iops + (rate.write_iops or 0.0)
        space.iops += iops
        space.size += rate.size_bytes or 0
        if rate.kind not in RELATION_KINDS or key[0] != "tablespace" or rate.tablespace == "pg_global":
            continue
        root = rate.parent or rate.file_id
        obj = objects.setdefault((key, root), _Totals())
        obj.iops += iops
        obj.size += rate.size_bytes or 0
        obj.members.append(rate.file_id)
        if rate.file_id == root or obj.name is None:
            system = (rate.name or "").startswith(SYSTEM_SCHEMAS)
            obj.name = None if system else object_label(rate.container, rate.name or rate.file_id)
    chosen: dict[str, str] = {}
    per_space: dict[tuple[AreaKind, str], int] = {}
    for (key, _root), obj in sorted(objects.items(), key=lambda item: -item[1].iops):
        space = spaces[key]
        if len(set(chosen.values())) >= MAX_OBJECTS or per_space.get(key, 0) >= MAX_OBJECTS_PER_TABLESPACE:
            continue
        if obj.name and worth_alone(obj.iops, obj.size, space.iops, space.size):
            per_space[key] = per_space.get(key, 0) + 1
            chosen.update(dict.fromkeys(obj.members, obj.name))
    return chosen


def _segment_area(segment: SegmentRate, space: Area, name: str) -> Area:
    read_iops, write_iops = segment.read_iops or 0.0, segment.write_iops or 0.0
    read_mb, write_mb = segment.read_mb_s or 0.0, segment.write_mb_s or 0.0
    member = Relation(segment.container, f"{segment.owner}.{segment.name}", segment.segment_type,
                      segment.partition, segment.parent)
    return replace(
        space, name=name, kind="object", size_bytes=segment.size_bytes or 0, read_iops=read_iops,
        write_iops=write_iops, read_mb_s=read_mb, write_mb_s=write_mb, syncs_per_s=0.0,
        mean_read_kb=mean_kib_of_rates(read_mb, read_iops),
        mean_write_kb=mean_kib_of_rates(write_mb, write_iops),
        files=len(segment.file_ids), paths=(), containers=(segment.container,), relations=(member,),
    )


def _without(space: Area, part: Area) -> Area:
    """*space* with the IO and bytes of *part* taken out (never below zero)."""
    return replace(
        space, size_bytes=max(space.size_bytes - part.size_bytes, 0),
        read_iops=max(space.read_iops - part.read_iops, 0.0), write_iops=max(space.write_iops - part.write_iops, 0.0),
        read_mb_s=max(space.read_mb_s - part.read_mb_s, 0.0), write_mb_s=max(space.write_mb_s - part.write_mb_s, 0.0),
    )


def split_segments(areas: Sequence[Area], segments: Iterable[SegmentRate]) -> list[Area]:
    """Oracle: the hot segments worth placing alone as areas of their own, out of their tablespace."""
    by_space = {a.tablespace.upper(): i for i, a in enumerate(areas) if a.kind == "tablespace" and a.tablespace}
    out = list(areas)
    original = {i: (a.iops, a.size_bytes) for i, a in enumerate(areas)}
    per_space: dict[int, int] = {}
    objects: list[Area] = []
    hottest = sorted(segments, key=lambda s: -((s.read_iops or 0.0) + (s.write_iops or 0.0)))
    for segment in hottest:
        index = by_space.get(segment.tablespace.upper())
        if index is None or not segment.size_bytes or len(objects) >= MAX_OBJECTS:
            continue
        if per_space.get(index, 0) >= MAX_OBJECTS_PER_TABLESPACE:
            continue
        iops = (segment.read_iops or 0.0) + (segment.write_iops or 0.0)
        space_iops, space_bytes = original[index]
        if not worth_alone(iops, segment.size_bytes, space_iops, space_bytes):
            continue
        name = object_label(segment.container, f"{segment.owner}.{segment.name}", segment.partition)
        part = _segment_area(segment, out[index], name)
        out[index] = _without(out[index], part)
        objects.append(part)
        per_space[index] = per_space.get(index, 0) + 1
    result = out + objects
    result.sort(key=lambda a: (-a.iops, -a.mb_s, a.name))
    return result


def group_with_objects(
    rates: Sequence[FileRate], layout: HostLayout | None = None, segments: Sequence[SegmentRate] = ()
) -> list[Area]:
    """Areas as :func:`group_areas` makes them, with hot objects placed alone where it pays."""
    areas = group_areas(rates, layout, relation_objects(rates))
    return split_segments(areas, segments) if segments else areas
