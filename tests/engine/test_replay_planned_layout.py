"""Where the planned replay puts each request: an area moves to its planned partition, laid end to end
from its zone's start and then placed as ext4 places it, unless its files already lie inside that zone
(the plan puts it in that partition; where the file system put it inside is not the plan's to choose)."""

from __future__ import annotations

import dataclasses

import msgspec
import numpy as np

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.replay_layout import area_files_of, planned_offsets
from advisor.model import Plan
from advisor.trace.codec import SECTOR_BYTES
from tests.helpers.model_trace import NOW, ZONES, base_workload, model_made_requests, traced
from tests.helpers.workloads import DISK_BYTES, models


def _setup() -> tuple[Plan, np.ndarray, np.ndarray, dict[str, list[int]], object]:
    work = base_workload()
    trace = traced(model_made_requests(), work)
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(trace,)), models(), generated_at=NOW))
    assert report.plan is not None
    offsets = model_made_requests().sector * SECTOR_BYTES
    at = offsets / DISK_BYTES
    cold = (at >= ZONES["cold"][0]) & (at < ZONES["cold"][1])
    return report.plan, offsets, cold, area_files_of(trace, work.rates), trace


def test_every_area_outside_its_planned_zone_moves_into_its_planned_partition() -> None:
    """Into the partition, where ext4 puts it there (from the second block group: advisor.engine.replay_fs),
    so not always inside the zone the plan drew from the partition's start."""
    plan, offsets, cold, files, trace = _setup()
    moved = planned_offsets(trace, plan, files, offsets)  # type: ignore[arg-type]
    assert moved is not None
    for area, mask in (("cold", cold), ("hot", ~cold)):
        (placed,) = [p for p in plan.placements if p.area == area]
        lo, hi = placed.zone_start * DISK_BYTES, placed.zone_end * DISK_BYTES
        inside_before = (offsets[mask] >= lo) & (offsets[mask] < hi)
        assert not inside_before.all()  # the plan moves it
        (partition,) = [p for p in plan.partitions if area in p.areas]
        start = partition.start_bytes
        assert ((moved[mask] >= start) & (moved[mask] < start + partition.size_bytes)).all()


def test_an_area_already_inside_its_planned_zone_stays_where_it_is() -> None:
    plan, offsets, cold, files, trace = _setup()
    around = tuple(dataclasses.replace(p, zone_start=ZONES["cold"][0] - 0.01, zone_end=ZONES["cold"][1] + 0.01)
                   if p.area == "cold" else p for p in plan.placements)
    moved = planned_offsets(trace, msgspec.structs.replace(plan, placements=around), files, offsets)  # type: ignore[arg-type]
    assert moved is not None
    assert (moved[cold] == offsets[cold]).all()  # in its partition already: not laid from the zone's start
    assert (moved[~cold] != offsets[~cold]).any()  # the other area still moves


def test_an_area_kept_as_spread_as_today_stays_in_the_room_its_partition_gives_it() -> None:
    plan, offsets, cold, files, trace = _setup()
    spread = planned_offsets(trace, plan, files, offsets, spread=True)  # type: ignore[arg-type]
    laid = planned_offsets(trace, plan, files, offsets)  # type: ignore[arg-type]
    assert spread is not None and laid is not None
    assert (spread == laid).all()  # each area one extent here: nothing to keep apart
    for area, mask in (("cold", cold), ("hot", ~cold)):
        (placed,) = [p for p in plan.placements if p.area == area]
        (partition,) = [p for p in plan.partitions if area in p.areas]
        later = [p.zone_start for p in plan.placements
                 if p.target == placed.target and p.zone_start > placed.zone_start]
        end = min(later, default=partition.end_fraction) * DISK_BYTES
        assert ((spread[mask] >= placed.zone_start * DISK_BYTES) & (spread[mask] < end)).all()


def test_an_areas_tables_are_laid_out_before_its_indexes_as_the_scripts_copy_them() -> None:
    """ALTER TABLE ALL IN TABLESPACE moves the tables first, ALTER INDEX ALL the indexes after: a new ext4 then
    holds them in that order, whatever order the trace listed the files in."""
    work = base_workload()
    (hot,) = [r for r in work.rates if r.tablespace == "hot"]
    index = dataclasses.replace(hot, path="/db/hot/f1", kind="index", file_id="hot/1", name="public.hot_0_pkey",
                                parent=hot.file_id)
    toast = dataclasses.replace(hot, path="/db/hot/f2", kind="toast", file_id="hot/2", name="pg_toast.pg_toast_1")
    rates = (index, *work.rates, toast)  # the index listed first
    trace = dataclasses.replace(traced(model_made_requests(), work), files=tuple(r.path for r in rates))
    files = area_files_of(trace, rates)
    assert [trace.files[f] for f in files["hot"]] == ["/db/hot/f0", "/db/hot/f2", "/db/hot/f1"]
    assert [trace.files[f] for f in files["cold"]] == ["/db/cold/f0"]
