"""The replay under a tier plan (``--target``): each traced request served on its area's device.

The trace is the perfect disk of :mod:`tests.helpers.model_trace` (five closed-loop readers, four
on a hot area, one on a cold one). Under a plan onto an NVMe device and a drive, the replay routes
each request to its area's device; one drive taking every request reproduces the one-disk replay
to the bit, and a flat device serves at its latency."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from advisor.disk.media.build import build_device_model
from advisor.disk.replay import Stream, replay
from advisor.disk.replay_devices import DriveDevice, FlatDevice, replay_on_devices
from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.model import Report
from advisor.model.inventory import InventoryDevice
from tests.helpers.model_trace import NOW, model_made_requests, phase_bound_stream, quiet_disk, traced
from tests.helpers.workloads import DISK_BYTES, model, models

GB = 10**9


def tier_report(*devices: InventoryDevice) -> Report:
    work = quiet_disk()
    work = dataclasses.replace(work, traces=(traced(model_made_requests(), work),))
    targets = tuple(build_device_model(d, Path(".")) for d in devices)
    return advise(AdviceRequest(work, models(), PlanOptions(target=targets, min_gain=0.0), generated_at=NOW))


def test_one_drive_taking_every_request_is_the_one_disk_replay_to_the_bit() -> None:
    stream = phase_bound_stream(300)
    alone = replay(model(DISK_BYTES), stream, DISK_BYTES, phase=0.3)
    routed = replay_on_devices(stream, np.zeros(300, dtype=np.int64), (DriveDevice(model(DISK_BYTES), DISK_BYTES),),
                               phase=0.3)
    assert np.array_equal(alone.issue_s, routed.issue_s) and np.array_equal(alone.complete_s, routed.complete_s)


def test_a_flat_device_serves_each_request_at_its_latency_and_releases_the_next() -> None:
    # one process, three reads back to back with 1 ms of think time: on flash each takes 0.1 ms
    issue = np.array([0.0, 0.011, 0.022])
    stream = Stream(np.array([0, 8192, 16384]), np.full(3, 8192), np.zeros(3, dtype=np.int64),
                    np.zeros(3, dtype=np.int64), issue, issue + 0.010)
    flash = FlatDevice(read_s=0.0001, write_s=0.00002, bytes_per_s=2e9, block_bytes=8192)
    done = replay_on_devices(stream, np.zeros(3, dtype=np.int64), (flash,))
    assert np.allclose(done.service_s, 0.0001)
    assert np.allclose(np.diff(done.issue_s), 0.0001 + 0.001)  # the next read follows the think time
    with pytest.raises(ValueError):
        replay_on_devices(stream, np.array([0, 1, 0]), (flash,))


def test_a_tier_plan_is_judged_by_its_replay_across_the_devices() -> None:
    found = tier_report(InventoryDevice("nvme0", "nvme", 64 * GB, preset="nvme-gen4"),
                        InventoryDevice("hdd", "hdd", 500 * GB, preset="class-7200-desktop"))
    assert found.plan is not None and found.plan.tiers is not None
    (check,) = found.replay
    assert check.refused is None and check.fits
    on = {a.area: a.device for a in found.plan.tiers.assignments}
    assert check.planned_ms is not None and check.predicted_gain is not None
    assert any("replayed under the tier plan" in n for n in check.notes)
    # across devices the uncertainty is the trace windows' and the replay's own: no layout kept as spread as today
    assert check.spread_gain is None and check.window_error is not None and check.model_error is not None
    assert check.gain_error is not None
    assert abs(check.gain_error - np.hypot(check.window_error, check.model_error)) < 1e-4
    rows = {r.area: r for r in check.areas}
    for area, row in rows.items():
        assert row.planned_ms is not None
        if on[area] == "nvme0":  # flash: a tenth of a millisecond, not a drive's milliseconds
            assert row.planned_ms < 1.0 < row.replayed_ms
    if "nvme0" in on.values():
        assert check.predicted_gain > 0.5
    assert any(n.startswith("The replay of the traced requests predicts") for n in found.plan.notes)


def test_two_drives_share_nothing_and_each_area_meets_only_its_own_queue() -> None:
    drives = tier_report(InventoryDevice("hdd", "hdd", 500 * GB, count=2, preset="class-7200-desktop"))
    assert drives.plan is not None and drives.plan.tiers is not None
    (check,) = drives.replay
    on = {a.area: a.device for a in drives.plan.tiers.assignments}
    assert check.planned_ms is not None and check.refused is None
    if len(set(on.values())) == 2:  # hot and cold apart: no seek between them, no queue shared
        assert check.predicted_gain is not None and check.predicted_gain > 0


def test_without_the_inventory_or_on_a_scaled_clock_the_tier_replay_is_refused_in_a_note() -> None:
    from advisor.engine.replay_check import check_trace

    found = tier_report(InventoryDevice("nvme0", "nvme", 64 * GB, preset="nvme-gen4"),
                        InventoryDevice("hdd", "hdd", 500 * GB, preset="class-7200-desktop"))
    assert found.plan is not None
    work = quiet_disk()
    trace = traced(model_made_requests(), work)
    work = dataclasses.replace(work, traces=(trace,))
    bare = check_trace(trace, work, models().of("sda"), found.plan)
    assert bare.planned_ms is None and any("no inventory given; no replay under the tier plan" in n for n in bare.notes)


def test_an_area_the_tier_plan_leaves_without_a_device_stops_the_tier_replay() -> None:
    import msgspec

    from advisor.engine.replay_check import check_trace

    found = tier_report(InventoryDevice("nvme0", "nvme", 64 * GB, preset="nvme-gen4"),
                        InventoryDevice("hdd", "hdd", 500 * GB, preset="class-7200-desktop"))
    assert found.plan is not None and found.plan.tiers is not None
    tiers = msgspec.structs.replace(found.plan.tiers, assignments=tuple(
        a for a in found.plan.tiers.assignments if a.area != "cold"))
    plan = msgspec.structs.replace(found.plan, tiers=tiers)
    work = quiet_disk()
    trace = traced(model_made_requests(), work)
    work = dataclasses.replace(work, traces=(trace,))
    targets = tuple(build_device_model(d, Path(".")) for d in (
        InventoryDevice("nvme0", "nvme", 64 * GB, preset="nvme-gen4"),
        InventoryDevice("hdd", "hdd", 500 * GB, preset="class-7200-desktop")))
    check = check_trace(trace, work, models().of("sda"), plan, targets=targets)
    assert check.planned_ms is None and check.predicted_gain is None
    assert any("places no device for cold; no replay under the tier plan" in n for n in check.notes)
    whole = check_trace(trace, work, models().of("sda"), found.plan, targets=targets)
    assert whole.planned_ms is not None  # the same plan with every area placed is replayed
