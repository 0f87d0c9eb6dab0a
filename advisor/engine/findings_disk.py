"""Findings about the disks themselves: rotation-bound commits, lying caches, SSDs,
hidden placement and misaligned partitions.

These do not depend on where areas sit but on what the disk is: a rotating disk commits at
most once per revolution at the same sector (RPM/60 per second), so a measured rate above
that means a volatile write cache acknowledges flushes; a solid-state disk has no zones; a
volume manager, RAID or virtual disk hides the platter position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from advisor.engine.classify import Classified
from advisor.model import DiskProfile, Finding, HostLayout
from advisor.units import MIB

COMMIT_NEAR = 0.8
"""WAL syncs at 80 % of RPM/60 or more: commits queue behind the rotation."""

CACHE_LIE_FACTOR = 1.2
"""A measured commit rate above 1.2 x RPM/60 on a rotating disk cannot be honest."""



def _rotation_limit(rpm: int | None) -> float | None:
    return rpm / 60.0 if rpm else None


def commit_bound(classified: Sequence[Classified], rpm_of: Mapping[str, int | None], default_rpm: int | None) -> list[
    Finding
]:
    """COMMIT_BOUND: WAL/redo syncs per second close to one per revolution."""
    found = []
    for c in classified:
        if c.cls != "wal" or c.area.syncs_per_s <= 0:
            continue
        rpm = rpm_of.get(c.area.disk or "", default_rpm) if c.area.disk else default_rpm
        limit = _rotation_limit(rpm)
        if limit is None:
            continue
        ratio = c.area.syncs_per_s / limit
        if ratio < COMMIT_NEAR:
            continue
        found.append(Finding(
            code="COMMIT_BOUND", severity="high" if ratio >= 0.95 else "medium", subject=c.area.name,
            title=f"{c.area.name} syncs {c.area.syncs_per_s:.0f}/s, {ratio:.0%} of what {rpm} rpm allows",
            evidence={
                "syncs_per_s": round(c.area.syncs_per_s, 2), "rpm": rpm, "rotation_limit_per_s": round(limit, 2),
                "ratio": round(ratio, 4), "disk": c.area.disk,
            },
            predicted_gain=None,
            action="Commits wait for the platter: batch them (PostgreSQL commit_delay/commit_siblings, "
                   "synchronous_commit=off where losing the last commits is acceptable; Oracle COMMIT_WAIT/"
                   "COMMIT_LOGGING=BATCH), or put WAL/redo behind a battery-backed write cache or on SSD.",
        ))
    return found


def cache_lies(profiles: Mapping[str, DiskProfile], rpm_of: Mapping[str, int | None] | None = None) -> list[Finding]:
    """CACHE_LIES: a rotating disk that commits faster than it rotates.

    The rpm is the profile's own (measured or given), else the model's used for that disk.
    """
    found = []
    for disk, profile in profiles.items():
        rpm = profile.rpm or (rpm_of or {}).get(disk)
        limit = _rotation_limit(rpm)
        if profile.commit_per_s is None or limit is None or profile.classification == "solid-state":
            continue
        if profile.commit_per_s <= CACHE_LIE_FACTOR * limit:
            continue
        found.append(Finding(
            code="CACHE_LIES", severity="critical", subject=disk,
            title=f"{disk} commits {profile.commit_per_s:.0f}/s but {rpm} rpm allows {limit:.0f}/s",
            evidence={
                "commit_per_s": round(profile.commit_per_s, 2), "rpm": rpm,
                "rotation_limit_per_s": round(limit, 2), "ratio": round(profile.commit_per_s / limit, 3),
                "target": profile.target,
            },
            predicted_gain=None,
            action="A write cache acknowledges flushes before the data is on the platter: a power loss can lose "
                   "committed transactions. Unless the cache is battery/flash backed, turn it off "
                   "(hdparm -W0, sdparm --clear WCE) and verify with diskchecker.pl.",
        ))
    return found


def solid_state(profiles: Mapping[str, DiskProfile], layout: HostLayout | None) -> tuple[list[Finding], set[str]]:
    """SOLID_STATE for disks measured (or reported by the kernel) as solid state."""
    found = []
    disks: set[str] = set()
    for disk, profile in profiles.items():
        if profile.classification != "solid-state":
            continue
        disks.add(disk)
        found.append(_ssd_finding(disk, "bench", profile.classification_reason))
    if layout is not None:
        for dev in layout.devices:
            # A measurement outranks the kernel's flag: loop devices over FUSE say 0 for a
            # rotating (emulated) disk, virtio says 1 for anything.
            if dev.rotational is False and dev.name not in disks and dev.name not in profiles:
                disks.add(dev.name)
                found.append(_ssd_finding(dev.name, "kernel (queue/rotational = 0)", dev.model or ""))
    return found, disks


def _ssd_finding(disk: str, source: str, reason: str) -> Finding:
    return Finding(
        code="SOLID_STATE", severity="info", subject=disk,
        title=f"{disk} is solid state: zones and seeks do not matter",
        evidence={"disk": disk, "source": source, "reason": reason},
        predicted_gain=None,
        action="No outer/inner plan for this disk. What matters on flash: queue depth (parallel IO), "
               "fsync latency for WAL/redo, free space for the controller (over-provisioning) and TRIM.",
    )


def _unknown_action(reason: str) -> str:
    text = reason.lower()
    if "lvm" in text or "dm" in text or "device-mapper" in text or "mapper" in text:
        return ("Map logical volumes to physical extents (lvs -o +seg_pe_ranges, dmsetup table); place with "
                "linear LVs on chosen PE ranges (pvcreate on partitions, pvmove) or use plain partitions.")
    if "raid" in text or "md" in text:
        return ("RAID stripes each file over several disks: place by partitioning the member disks before "
                "building the array (the same band on every member), and bench the array as a whole.")
    if "asm" in text:
        return ("ASM spreads extents itself: use separate disk groups on outer and inner partitions, or ASM "
                "Intelligent Data Placement (HOT/COLD regions; deprecated since 12.2) on whole raw disks.")
    return ("The block device is virtual, thin or remote: its LBAs do not map to platter positions. Ask the "
            "storage administrator where the volume lives, and bench the volume before trusting zone advice.")


def placement_unknown(classified: Sequence[Classified], layout: HostLayout | None) -> list[Finding]:
    """PLACEMENT_UNKNOWN, one per reason, with the areas it hides and their IO share.

    An area whose reason extends its device's ("virtual disk ...; does not exist yet: ...")
    counts under the device's reason: one cause, one finding."""
    devices = sorted({d.reason for d in layout.devices if not d.placement_known and d.reason}
                     if layout is not None else set(), key=len, reverse=True)
    by_reason: dict[str, list[Classified]] = {}
    for c in classified:
        if not c.area.placement_known:
            reason = c.area.placement_reason or "placement not known"
            reason = next((r for r in devices if reason.startswith(r)), reason)
            by_reason.setdefault(reason, []).append(c)
    if layout is not None:
        for dev in layout.devices:
            if not dev.placement_known:
                by_reason.setdefault(dev.reason or f"{dev.name}: placement not known", [])
    found = []
    for reason, members in by_reason.items():
        share = sum(c.io_share for c in members)
        names = ", ".join(c.area.name for c in members[:6]) or "(device)"
        found.append(Finding(
            code="PLACEMENT_UNKNOWN", severity="medium" if share >= 0.1 else "low", subject=names,
            title=f"Physical placement unknown: {reason}",
            evidence={"reason": reason, "areas": len(members), "io_share": round(share, 4)},
            predicted_gain=None,
            action=_unknown_action(reason),
        ))
    return found


def misaligned(layout: HostLayout | None) -> list[Finding]:
    """MISALIGNED: partitions not starting on a physical block (or a 1 MiB) boundary."""
    if layout is None:
        return []
    physical = {d.name: max(d.physical_block_bytes, d.logical_block_bytes) for d in layout.devices}
    found = []
    for part in layout.partitions:
        if part.number == 0:
            continue
        block = physical.get(part.disk, 512)
        off_block = part.start_bytes % block
        off_mib = part.start_bytes % MIB
        if part.aligned is not False and off_block == 0 and off_mib == 0:
            continue
        bad_block = off_block != 0 or (part.aligned is False and off_mib == 0)
        found.append(Finding(
            code="MISALIGNED", severity="high" if bad_block else "low", subject=part.name,
            title=f"{part.name} starts at byte {part.start_bytes}, not on a "
                  f"{'physical block' if bad_block else '1 MiB'} boundary",
            evidence={
                "start_bytes": part.start_bytes, "physical_block_bytes": block,
                "offset_in_block": off_block, "offset_in_mib": off_mib,
            },
            predicted_gain=None,
            action="Recreate the partition starting on a 1 MiB boundary (sfdisk/parted default) and copy the "
                   "data back; misaligned 4K writes become read-modify-write cycles.",
        ))
    return found
