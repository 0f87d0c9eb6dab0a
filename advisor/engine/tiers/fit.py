"""Areas too big for any one device of an inventory: found first, left out of the plan, said why.

One tablespace reading 647 MB/s cannot live on a SATA SSD (about 530 MB/s) nor on one
7200 rpm disk (under 200 MB/s at its outer edge), however the other areas are arranged.
Such an area used to make the whole plan fail; now it is set aside before the search, the
other areas are planned, and the area is reported (``AREA_EXCEEDS_DEVICE``) with what would
carry it: the same devices striped, a faster medium, or more capacity.

An area "fits" a device when a rule allows it there, its slot (size with headroom) is no
bigger than the device, and its IO alone stays under the device's ceiling. The ceilings are
the media models' own (:data:`~advisor.disk.media.SATURATION` of the IOPS or throughput
ceiling of solid state and cloud volumes, the band-cleaning rate of SMR) and, for rotating
disks, the media rate at the outer edge: no queue or arrangement moves more bytes per second
than that. Rotating disks get no IOPS ceiling here: with a deep queue a drive reorders
requests and shortens its seeks and rotational waits, by how much the zone model does not say,
so an area is set aside only when no arrangement at all could serve it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from advisor.disk.media import SATURATION, Load
from advisor.disk.media.build import SolidPreset, media_presets, solid_state
from advisor.engine.tiers.targets import Evaluator, Target, TierItem
from advisor.errors import BadInput
from advisor.units import DISK_GB, MIB

INFINITE = float("inf")


@dataclass(frozen=True)
class DeviceUse:
    """How much of one device an area would use alone (share of its ceiling or of its room)."""

    target: Target
    load: float  # share of the device's IOPS / throughput ceiling (1.0 = all of it)
    room: float  # slot bytes / capacity
    rule: str | None  # why a rule forbids the area there, else None

    @property
    def fits(self) -> bool:
        """Allowed, with room, and under the saturation point."""
        return self.rule is None and self.room <= 1.0 and self.load < SATURATION


@dataclass(frozen=True)
class Oversized:
    """An area no device can take alone, why, and what would carry it."""

    item: TierItem
    uses: tuple[DeviceUse, ...]
    carry: str

    @property
    def shortfall(self) -> float:
        """How far over the best allowed device the area is (its least load or room share)."""
        allowed = [max(u.load / SATURATION, u.room) for u in self.uses if u.rule is None]
        return min(allowed, default=INFINITE)

    @property
    def reason(self) -> str:
        """One clause per device kind: what the area needs of it."""
        parts, seen = [], set()
        for use in self.uses:
            kind = (use.target.model.model_name, use.target.medium, use.target.capacity_bytes)
            if kind in seen:
                continue
            seen.add(kind)
            name = f"{use.target.name} ({use.target.medium})"
            if use.rule is not None:
                parts.append(f"{name}: {use.rule}")
            elif use.room > 1.0:
                parts.append(f"{name}: holds {use.target.capacity_bytes / DISK_GB:,.0f} GB, the area needs "
                             f"{self.item.slot_bytes / DISK_GB:,.0f} GB with headroom")
            elif not math.isfinite(use.load) and (smr := use.target.model.smr) is not None:
                parts.append(f"{name}: {self.item.write_iops:,.0f} random writes/s, and "
                             + ("host-managed SMR takes no random writes" if smr.host_managed
                                else f"band cleaning sustains {smr.cleaning_iops:,.0f}/s"))
            elif use.target.model.zoned is not None:
                parts.append(f"{name}: the area alone moves {use.load:.0%} of what its outer edge can read or write")
            else:
                parts.append(f"{name}: the area alone needs {use.load:.0%} of its IOPS or throughput ceiling")
        return "; ".join(parts)

    def describe(self) -> str:
        """The area, its demand, why it fits nowhere and what would carry it, in one sentence."""
        return (f"{self.item.name} ({demand(self.item)}) fits on no single device: {self.reason}; "
                f"would carry it: {self.carry}")


def demand(item: TierItem) -> str:
    """The area's IO and size as the user stated them."""
    return f"{item.iops:,.0f} IO/s, {mib_s(item):,.0f} MiB/s, {item.size_bytes / DISK_GB:,.1f} GB"


def mib_s(item: TierItem) -> float:
    """The area's bytes per second in MiB (the unit of the workload's rates)."""
    return item.iops * item.block_bytes / MIB


def _load(item: TierItem) -> Load:
    return Load(item.name, item.read_iops, item.write_iops, item.block_bytes, item.sequential)


def device_load(item: TierItem, target: Target) -> float:
    """Share of *target*'s ceiling the area alone would use (on rotating media: of its outer-edge rate)."""
    model = target.model
    if model.flat is not None:
        return model.flat.utilisation([_load(item)])
    assert model.zoned is not None
    if model.smr is not None and not item.sequential and item.write_iops > 0:
        if model.smr.write_ms(item.write_iops, item.block_bytes, 0.0) is None:
            return INFINITE
    rate_mb_s_decimal = max(model.zoned.zone_curve(2)[0][1], 1e-9)
    return item.iops * item.block_bytes / 1e6 / rate_mb_s_decimal


def _uses(item: TierItem, targets: Sequence[Target]) -> tuple[DeviceUse, ...]:
    from advisor.engine.tiers.search import allowed

    return tuple(DeviceUse(t, device_load(item, t), item.slot_bytes / max(t.capacity_bytes, 1),
                           allowed(item, t, targets)) for t in targets)


def _carry(item: TierItem, uses: Sequence[DeviceUse]) -> str:
    """Striping over the inventory's own kinds, a faster medium, or more room."""
    options = []
    seen = set()
    for use in uses:
        if use.rule is not None or (use.target.model.model_name, use.target.medium) in seen:
            continue
        if not math.isfinite(use.load):  # no number of them carries it (random writes on host-managed SMR)
            continue
        seen.add((use.target.model.model_name, use.target.medium))
        stripes = max(2, math.ceil(max(use.load / SATURATION, use.room) * 1.0001))
        if stripes <= 64:
            options.append(f"{stripes} x {use.target.medium} like {use.target.name} striped")
    if any(u.room <= 1.0 and u.rule is None for u in uses):
        faster = _faster_medium(item)
        if faster:
            options.append(faster)
    else:
        options.append(f"a device of at least {item.slot_bytes / DISK_GB:,.0f} GB")
    return ", or ".join(options) if options else "no device kind of this inventory (check the rules above)"


def _faster_medium(item: TierItem) -> str | None:
    """The first solid-state preset (slowest first) that would serve the area alone."""
    presets = [(name, v) for name, v in media_presets().items() if isinstance(v, SolidPreset)]
    for name, values in sorted(presets, key=lambda nv: nv[1].mb_s_decimal):
        model = solid_state(name, values)
        if model.utilisation([_load(item)]) < SATURATION:
            return f"one faster device such as {name} ({model.mb_s_decimal:,.0f} MB/s, {model.max_iops:,.0f} IOPS)"
    return None


def split_oversized(items: Sequence[TierItem], targets: Sequence[Target]) -> tuple[list[TierItem], list[Oversized]]:
    """The areas some device can take alone, and the others with their reasons."""
    fitting: list[TierItem] = []
    over: list[Oversized] = []
    for item in items:
        uses = _uses(item, targets)
        if any(u.fits for u in uses):
            fitting.append(item)
        else:
            over.append(Oversized(item, uses, _carry(item, uses)))
    return fitting, over


def nothing_fits(over: Sequence[Oversized]) -> BadInput:
    """The error when no area fits any device: the biggest shortfall, and how many others."""
    worst = max(over, key=lambda o: (o.shortfall, o.item.name))
    refusals = [r for r in (smr_refusal(u.target, [worst.item]) for u in worst.uses) if r is not None]
    if refusals and len(refusals) == len(worst.uses):
        return refusals[0]  # every device is SMR and the area is written at random: say that, not IOPS
    others = len(over) - 1
    tail = f" (and {others} other area{'s' if others != 1 else ''})" if others else ""
    return BadInput(f"no area fits any device of the inventory; the biggest shortfall: {worst.describe()}{tail}; "
                    "nothing planned", hint="add devices that can carry them: docs/tiers.md says how")


def smr_refusal(target: Target, group: Sequence[TierItem]) -> BadInput | None:
    """Why an SMR device refuses *group*: its random writes (not its IOPS); None when that is not the cause."""
    smr = target.model.smr
    random = [i for i in group if not i.sequential and i.write_iops > 0]
    if smr is None or not random:
        return None
    rate = sum(i.write_iops for i in random)
    why = ("host-managed SMR takes no random writes" if smr.host_managed
           else f"more than its band cleaning sustains ({smr.cleaning_iops:,.0f}/s)")
    return BadInput(f"device {target.name!r} ({target.medium}) cannot take {rate:,.0f} random writes/s of "
                    f"{', '.join(i.name for i in random)}: {why}; nothing planned",
                    hint="add a CMR hdd or solid-state device for areas written at random")


def too_small(items: Sequence[TierItem], evaluator: Evaluator, assignment: dict[str, int] | None) -> BadInput:
    """The error for an inventory that cannot hold the database: the shortfall, or what does not fit where."""
    targets = evaluator.targets
    need = sum(i.slot_bytes for i in items)
    have = sum(t.capacity_bytes for t in targets)
    if need > have:
        return BadInput(f"the inventory holds {have / DISK_GB:,.1f} GB but the areas need {need / DISK_GB:,.1f} GB "
                        f"with headroom: {(need - have) / DISK_GB:,.1f} GB short; nothing planned",
                        hint="add devices or lower headroom")
    if assignment is None and evaluator.unplaced is not None:
        item = evaluator.unplaced
        refusals = [r for r in (smr_refusal(t, [item]) for t in targets) if r is not None]
        if refusals and len(refusals) == len(targets):
            return refusals[0]  # every device is SMR and the area is written at random
        return BadInput(f"area {item.name!r} ({item.slot_bytes / DISK_GB:,.1f} GB with headroom, "
                        f"{item.iops:,.0f} IO/s) finds no device with room left under its rules once the busier areas "
                        "are placed; nothing planned",
                        hint="add a device with room for it, or check the media of the inventory")
    for index, target in enumerate(targets):
        group = [i for i in items if assignment is not None and assignment.get(i.name) == index]
        if evaluator.weighted(index, group) is None:
            refused = smr_refusal(target, group)
            if refused is not None:
                return refused
            fault = at_fault(evaluator, index, group)
            load = sum(i.iops for i in fault)
            more = len(group) - len(fault)
            return BadInput(f"device {target.name!r} ({target.medium}) cannot carry the {load:,.0f} IO/s of "
                            f"{', '.join(i.name for i in fault)} together (over its IOPS or throughput ceiling"
                            f"{f'; {more} smaller areas planned there too' if more else ''}); nothing planned",
                            hint="add devices of a faster medium, or more volumes")
    return BadInput("the areas do not fit the inventory under its rules; nothing planned",
                    hint="add devices, or check the media of the inventory")


def at_fault(evaluator: Evaluator, index: int, group: Sequence[TierItem]) -> list[TierItem]:
    """The busiest areas of *group* that alone are already more than device *index* can carry."""
    fault: list[TierItem] = []
    for item in sorted(group, key=lambda i: (-i.iops, i.name)):
        fault.append(item)
        if not evaluator.carries(index, fault):
            return fault
    return list(group)
