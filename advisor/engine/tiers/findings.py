"""Findings that only a tiered view can make: SMR under writes, a fast tier idle or full,
small random IO on a cloud throughput volume, an area too big for any one device.

Each looks at today's layout when the inventory names the disks the workload sits on
(a device's ``name`` or ``path`` equals the disk's), and at the plan otherwise, and says
which it looked at in its evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.disk.media import Load
from advisor.disk.media.build import DeviceModel, by_disk_name
from advisor.disk.media.cloud import CloudVolume
from advisor.engine.classify import Classified
from advisor.engine.tiers.fit import demand, mib_s, split_oversized
from advisor.engine.tiers.targets import targets_of, tier_items
from advisor.model import Finding, TierPlan
from advisor.model.inventory import SOLID_STATE_MEDIA
from advisor.units import DISK_GB, DISK_MB, KIB, MIB

WRITE_CLASSES = frozenset({"wal", "temp", "write-heavy"})
SMALL_IO_BYTES = 64 * KIB
CAP_SHARE = 0.8
"""Share of a cloud volume's IOPS cap at which small random IO is reported."""
IDLE_IO_SHARE = 0.05


def _on_device_today(classified: Sequence[Classified], models: Sequence[DeviceModel]) -> dict[str, list[Classified]]:
    """Areas grouped by the inventory device they sit on today (only disks the inventory names)."""
    known = by_disk_name(models)
    out: dict[str, list[Classified]] = {}
    for c in classified:
        model = known.get(c.area.disk or "")
        if model is not None:
            out.setdefault(model.device.name, []).append(c)
    return out


def smr_for_writes(classified: Sequence[Classified], models: Sequence[DeviceModel]) -> list[Finding]:
    """Write streams (WAL/redo, temp, write-heavy data) on drive-managed SMR today."""
    by_name = {m.device.name: m for m in models}
    found = []
    for device, areas in sorted(_on_device_today(classified, models).items()):
        if by_name[device].medium not in ("smr-dm", "smr-hm"):
            continue
        writers = [c for c in areas if c.cls in WRITE_CLASSES or (c.area.write_iops > 1.0 and c.cls != "archive")]
        if not writers:
            continue
        rate = sum(c.area.write_iops for c in writers)
        found.append(Finding(
            code="SMR_FOR_WRITES", severity="high" if any(c.cls == "wal" for c in writers) else "medium",
            subject=device, title=f"{device} is shingled (SMR) and takes {rate:.0f} writes/s of "
                                  f"{', '.join(c.area.name for c in writers)}",
            evidence={"device": device, "medium": by_name[device].medium, "write_iops": round(rate, 2),
                      "areas": ", ".join(c.area.name for c in writers), "looked_at": "today's layout"},
            predicted_gain=None,
            action="Move WAL/redo, temp, undo and written data to CMR or solid state; keep only archive, FRA and "
                   "backups (sequential, written once) on SMR: random writes fall to band-cleaning speed once "
                   "the media cache fills.",
        ))
    return found


def cloud_small_io(
    classified: Sequence[Classified], models: Sequence[DeviceModel], tiers: TierPlan | None
) -> list[Finding]:
    """Small random IO on a cloud HDD volume using most of its IOPS cap (today, or in the plan)."""
    by_name = {m.device.name: m for m in models}
    by_name.update({t.name: t.model for t in targets_of(models)})
    by_area = {c.area.name: c for c in classified}
    groups: dict[str, tuple[list[Classified], str]] = {
        name: (areas, "today's layout") for name, areas in _on_device_today(classified, models).items()}
    if tiers is not None:
        for dev in tiers.devices:
            if dev.medium == "cloud-hdd" and dev.name not in groups:
                groups[dev.name] = ([by_area[a] for a in dev.areas if a in by_area], "the plan")
    found = []
    for device, (areas, looked_at) in sorted(groups.items()):
        model = by_name.get(device)
        if model is None or not isinstance(model.flat, CloudVolume):
            continue
        small = [c for c in areas if not c.sequential and c.area.mean_io_bytes <= SMALL_IO_BYTES and c.area.iops > 0]
        loads = [Load(c.area.name, c.area.read_iops, c.area.write_iops, c.area.mean_io_bytes, False) for c in small]
        units = sum(CloudVolume.io_units(x) for x in loads)
        share = units / model.flat.iops_cap
        if share < CAP_SHARE:
            continue
        mb_s = sum(x.iops * x.block_bytes for x in loads) / MIB  # MiB/s, as the report's area rates
        found.append(Finding(
            code="CLOUD_VOLUME_SMALL_IO", severity="high" if share >= 1.0 else "medium", subject=device,
            title=f"{device} ({model.flat.name}) gets {units:.0f} small random IOs/s: {share:.0%} of its "
                  f"{model.flat.iops_cap:.0f} IOPS cap while moving only {mb_s:.1f} MiB/s",
            evidence={"device": device, "volume_class": model.flat.name, "io_per_s": round(units, 1),
                      "iops_cap": model.flat.iops_cap, "cap_share": round(share, 3), "mb_s": round(mb_s, 2),
                      "baseline_mb_s": round(model.flat.baseline_mb_s_decimal * DISK_MB / MIB, 1),
                      "areas": ", ".join(c.area.name for c in small), "looked_at": looked_at},
            predicted_gain=None,
            action="A throughput-optimised volume counts every IO up to 1 MiB against its cap and does not merge "
                   "random ones: put random-read tables and indexes on an SSD-class volume and keep this one for "
                   "scans, archive and backups.",
        ))
    return found


def fast_tier_use(tiers: TierPlan | None) -> list[Finding]:
    """FAST_TIER_FULL when more fast capacity would still gain; FAST_TIER_IDLE when it carries little IO."""
    if tiers is None:
        return []
    fast = [d for d in tiers.devices if d.medium in SOLID_STATE_MEDIA]
    if not fast:
        return []
    capacity = sum(d.capacity_bytes for d in fast)
    used = sum(d.used_bytes for d in fast)
    fast_iops = sum(d.iops for d in fast)
    total_iops = sum(d.iops for d in tiers.devices)
    names = ", ".join(d.name for d in fast)
    points = [p for p in tiers.curve if p.mean_ms is not None]
    found = []
    free = capacity - used
    fast_names = {d.name for d in fast}
    waiting = [a for a in tiers.assignments
               if a.device not in fast_names and a.iops > 0 and a.kind not in ("cold", "archive")]
    blocked = bool(waiting) and free < min(a.slot_bytes for a in waiting)
    if blocked and len(points) >= 2 and points[-1].mean_ms is not None:
        last, before = points[-1], points[-2]
        assert last.mean_ms is not None and before.mean_ms is not None
        step_gb = (last.fast_bytes - before.fast_bytes) / DISK_GB
        gain = (before.mean_ms - last.mean_ms) / before.mean_ms if before.mean_ms > 0 else 0.0
        if gain > 0.01 and step_gb > 0:
            found.append(Finding(
                code="FAST_TIER_FULL", severity="medium", subject=names,
                title=f"the fast tier ({names}) has no room for the next hot area ({len(waiting)} wait on slower "
                      f"devices) and its last {step_gb:,.0f} GB still cut the predicted mean by {gain:.0%}",
                evidence={"capacity_bytes": capacity, "used_bytes": used, "free_bytes": free,
                          "smallest_waiting_bytes": min(a.slot_bytes for a in waiting),
                          "waiting_areas": ", ".join(a.area for a in waiting[:5]), "last_step_gb": round(step_gb, 1),
                          "mean_ms_before_step": before.mean_ms, "mean_ms_after_step": last.mean_ms,
                          "gain_per_gb": round(gain / step_gb, 5), "looked_at": "the plan"},
                predicted_gain=round(gain, 4),
                action="More fast capacity would still pay: see the marginal-gain curve of the plan for what each "
                       "GB buys, and what stays on the rotating tier.",
            ))
    if total_iops > 0 and fast_iops / total_iops < IDLE_IO_SHARE:
        found.append(Finding(
            code="FAST_TIER_IDLE", severity="info", subject=names,
            title=f"the fast tier ({names}) would carry only {fast_iops / total_iops:.0%} of the IO",
            evidence={"capacity_bytes": capacity, "used_bytes": used, "fast_iops": round(fast_iops, 2),
                      "total_iops": round(total_iops, 2), "looked_at": "the plan"},
            predicted_gain=None,
            action="The workload has little hot data for solid state: the rotating tier serves it nearly as well. "
                   "Check the workload covers the busy hours before buying or keeping fast capacity for it.",
        ))
    return found


def area_exceeds_device(classified: Sequence[Classified], models: Sequence[DeviceModel],
                        headroom: float) -> list[Finding]:
    """AREA_EXCEEDS_DEVICE: an area that no single device of the inventory can take (left out of the plan)."""
    _, oversized = split_oversized(tier_items(classified, headroom), targets_of(models))
    found = []
    for over in oversized:
        item = over.item
        found.append(Finding(
            code="AREA_EXCEEDS_DEVICE", severity="high", subject=item.name,
            title=f"{item.name} ({demand(item)}) is more than any one device of the inventory can carry: "
                  "it is left out of the plan",
            evidence={"area": item.name, "iops": round(item.iops, 2),
                      "mib_s": round(mib_s(item), 2), "slot_bytes": item.slot_bytes,
                      "why": over.reason, "would_carry": over.carry, "looked_at": "the inventory"},
            predicted_gain=None,
            action=f"Give it {over.carry}; or check the figure: reads a cache served (a read latency far below "
                   "the medium's) never reach a disk. The other areas are planned without it.",
        ))
    return found
