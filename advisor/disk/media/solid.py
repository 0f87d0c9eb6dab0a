"""Solid state (and arrays measured as a black box): latency by IO size, queueing on a ceiling.

A read or write of ``b`` bytes costs the measured QD1 latency of one ``block`` plus the extra
bytes at the sequential rate; all loads on the device share its IOPS ceiling (the best
queue-depth result of the bench) and its bandwidth, and wait in one queue (M/M/1). Without a
bench profile, a preset gives datasheet-class figures (presets.toml, with sources).
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.disk.media import SATURATION, Load, queue_factor
from advisor.errors import BadInput
from advisor.model import DiskProfile
from advisor.units import DISK_MB


@dataclass(frozen=True, slots=True)
class SolidState:
    """A device with no position cost: QD1 latency, IOPS ceiling and sequential rate."""

    name: str
    read_ms: float  # QD1 latency of one block_bytes random read
    write_ms: float  # QD1 latency of one block_bytes write (to the drive's write buffer)
    max_iops: float  # best IOPS at any queue depth
    mb_s_decimal: float  # sequential rate
    block_bytes: int = 4096
    source: str = ""

    def _service_ms(self, load: Load) -> float:
        extra = max(0, load.block_bytes - self.block_bytes) / (self.mb_s_decimal * 1000.0)
        if load.iops <= 0:
            return self.read_ms + extra
        base = (load.read_iops * self.read_ms + load.write_iops * self.write_ms) / load.iops
        return base + extra

    def utilisation(self, loads: list[Load]) -> float:
        """The larger of the IOPS and bandwidth shares the loads use."""
        iops = sum(x.iops for x in loads)
        mb_s_decimal = sum(x.mb_s_decimal for x in loads)
        return max(iops / self.max_iops, mb_s_decimal / self.mb_s_decimal)

    def times_ms(self, loads: list[Load]) -> list[float] | None:
        """Service time of each load, inflated by the shared queue; None above saturation."""
        used = self.utilisation(loads)
        if used >= SATURATION:
            return None
        factor = queue_factor(used)
        return [self._service_ms(x) * factor for x in loads]


def from_profile(profile: DiskProfile, name: str) -> SolidState:
    """A solid-state model from an ``advisor bench`` profile of the device.

    QD1 latency from the full-stroke random reads, the ceiling from the best queue-depth
    run, the rate from the zone reads. Writes are taken as fast as reads: the bench does not
    time QD1 random writes on devices (it never writes them), which flatters writes on
    drives without a power-safe buffer (documented in docs/tiers.md).
    """
    latency = profile.full_stroke_latency
    best = max(profile.qd_iops.values(), default=0.0)
    iops = max(best, profile.full_stroke_iops or 0.0)
    rate = max((z.bytes_per_s for z in profile.zones), default=0.0) / DISK_MB
    if latency is None or iops <= 0 or rate <= 0:
        raise BadInput(f"device {name!r}: its bench profile lacks random-read latency, IOPS or zone rates "
                       "(run `advisor bench` with the default tests)")
    return SolidState(name=f"measured {profile.target}", read_ms=latency.mean_ms, write_ms=latency.mean_ms,
                      max_iops=iops, mb_s_decimal=rate, block_bytes=profile.block_size_bytes or 4096,
                      source=f"advisor bench of {profile.target} on {profile.measured_at}")
