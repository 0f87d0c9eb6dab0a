"""Where a tier plan sends each traced request: which device of the inventory, at which byte.

A tier plan (``advisor plan --target``) moves every area to a device of the inventory. The
replay under it (:func:`advisor.disk.replay_devices.replay_on_devices`) needs, per traced
request, the device that serves it and its position there:

* a request of an area (a flush: of the area whose write it makes durable, its owner) goes
  to the area's device; on a drive, the area's files are laid end to end from the start of
  its planned zone, as :mod:`advisor.engine.replay_layout` lays them on today's disk;
* a request no area owns (the file system's journal and metadata, a flush of no area's
  write) goes with the file systems, to the device that takes most of the traced requests,
  at the same fraction of that device as of the traced disk.

A trace whose areas the plan leaves unplaced (an area larger than any device) is not
replayed under it: part of its requests would have no device. A drive-managed or
host-managed SMR device is replayed as the drive its reads are modelled by: its shingled
writes are the aggregate model's (a note says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from advisor.disk.media.build import DeviceModel
from advisor.disk.media.cloud import CloudVolume
from advisor.disk.media.solid import SolidState
from advisor.disk.physics import ModelPhysics
from advisor.disk.replay_devices import DriveDevice, FlatDevice
from advisor.disk.replay_stream import IntArray
from advisor.engine.replay_layout import laid_out
from advisor.model import BlockTrace, Plan
from advisor.model.inventory import instance_names
from advisor.trace.codec import SECTOR_BYTES, decode_extents
from advisor.units import DISK_MB


@dataclass(frozen=True)
class TierRoute:
    """Per request its device (an index into *devices*) and its byte there, and what the route assumed."""

    device: IntArray
    offset_bytes: IntArray
    devices: tuple[DriveDevice | FlatDevice, ...]
    notes: tuple[str, ...]


def tier_route(trace: BlockTrace, plan: Plan, targets: Sequence[DeviceModel], area_files: dict[str, list[int]],
               owners_area: Sequence[str | None], offsets: IntArray) -> TierRoute | str:
    """The route of every request of *trace* under the tier *plan*, or why there is none (a line).

    *owners_area* is each request's area (a flush's owner's); *offsets* its byte on the traced disk."""
    assert plan.tiers is not None
    where = {a.area: a.device for a in plan.tiers.assignments}
    traced = sorted({a for a in owners_area if a})
    unplaced = [a for a in traced if a not in where]
    if unplaced:
        return f"trace of {trace.disk}: the tier plan places no device for {', '.join(unplaced[:4])}"
    model_of = {name: m for m in targets for name in instance_names(m.device)}
    names = sorted({where[a] for a in traced} | {p.disk for p in plan.partitions if p.disk in model_of})
    missing = [n for n in names if n not in model_of]
    if missing or not names:
        return f"trace of {trace.disk}: the tier plan's devices {', '.join(missing)} are not in the inventory given"
    notes: list[str] = []
    devices = tuple(_device(model_of[n], n, notes) for n in names)
    index = {n: k for k, n in enumerate(names)}
    route = np.array([index[where[a]] if a else -1 for a in owners_area], dtype=np.int64)
    if (route >= 0).any():
        busiest = int(np.bincount(route[route >= 0], minlength=len(names)).argmax())
    else:
        busiest = index[names[0]]
    route = np.where(route >= 0, route, busiest)
    moved = _laid_out(trace, plan, model_of, area_files, offsets)
    share = np.array([_capacity(model_of[n]) / trace.disk_size_bytes for n in names])[route]
    scaled = (offsets * share).astype(np.int64) // SECTOR_BYTES * SECTOR_BYTES  # the same fraction of its device
    position = np.where(moved >= 0, moved, scaled)
    notes.append(f"trace of {trace.disk}: replayed under the tier plan on {', '.join(names)}: each area's requests "
                 "on its device, the file systems' own (journal, metadata) on "
                 f"{names[busiest]}, the device that takes most of them; flat devices serve each request at "
                 "their latency, without a queue")
    return TierRoute(route, position.astype(np.int64), devices, tuple(dict.fromkeys(notes)))


def _capacity(model: DeviceModel) -> int:
    return model.device.capacity_bytes


def _device(model: DeviceModel, name: str, notes: list[str]) -> DriveDevice | FlatDevice:
    if isinstance(model.zoned, ModelPhysics):
        if model.smr is not None:
            notes.append(f"{name}: {model.medium} replayed as the drive its reads are modelled by; its shingled "
                         "writes are the aggregate model's")
        return DriveDevice(model.zoned.model, _capacity(model))
    flat = model.flat
    if isinstance(flat, SolidState):
        return FlatDevice(flat.read_ms / 1000.0, flat.write_ms / 1000.0, flat.mb_s_decimal * DISK_MB, flat.block_bytes)
    if isinstance(flat, CloudVolume):
        return FlatDevice(flat.latency_ms / 1000.0, flat.latency_ms / 1000.0,
                          max(flat.baseline_mb_s_decimal, 1e-9) * DISK_MB, 0)
    raise ValueError(f"device {name}: no model to replay on")


def _laid_out(trace: BlockTrace, plan: Plan, model_of: dict[str, DeviceModel], area_files: dict[str, list[int]],
              offsets: IntArray) -> IntArray:
    """Each request's byte on its area's drive, its area's files laid end to end from the start of the
    planned zone; -1 for a request of no area's file or of an area on a flat device."""
    on_disk = {a: p.disk for p in plan.partitions for a in p.areas}
    placed = [pl for pl in plan.placements if pl.area in area_files and on_disk.get(pl.area) in model_of
              and model_of[on_disk[pl.area]].zoned is not None]
    table = decode_extents(trace.extents, len(trace.files))
    return laid_out(table, [area_files[pl.area] for pl in placed],
                    [int(pl.zone_start * _capacity(model_of[on_disk[pl.area]])) for pl in placed], offsets)
