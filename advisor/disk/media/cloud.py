"""Cloud HDD volumes (throughput-optimised and cold classes): a token bucket, not a disk.

Every IO up to 1 MiB costs one IO against the volume's IOPS cap; larger ones cost one per
MiB. Sequential IO smaller than 1 MiB is merged by the service, so a sequential stream costs
its bytes / 1 MiB; small random IO is not merged and meets the cap long before the
throughput limit (8 KiB random reads on a 500-IOPS volume: about 4 MiB/s). Throughput is the
baseline per TiB of volume size (the burst rate lasts only while credits last), capped per
volume. There are no zones: the position of data inside the volume means nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from advisor.disk.media import SATURATION, Load, queue_factor
from advisor.units import MIB, TIB


@dataclass(frozen=True, slots=True)
class CloudVolume:
    """One volume of a cloud HDD class, sized ``capacity_bytes``."""

    name: str
    capacity_bytes: int
    iops_cap: float  # IOs per second per volume, each up to 1 MiB
    baseline_mb_s_decimal_per_tib: float
    burst_mb_s_decimal_per_tib: float
    max_mb_s_decimal: float  # per volume, MB/s of 10^6 bytes (like the baseline)
    latency_ms: float  # per IO when idle (the backing disks' positioning time)
    source: str = ""

    @property
    def baseline_mb_s_decimal(self) -> float:
        """Sustained throughput of this volume size."""
        return min(self.max_mb_s_decimal, self.baseline_mb_s_decimal_per_tib * self.capacity_bytes / TIB)

    @staticmethod
    def io_units(load: Load) -> float:
        """IOs counted against the cap per second: merged when sequential, one per IO (per MiB) else."""
        if load.sequential:
            return load.iops * load.block_bytes / MIB
        return load.iops * max(1, math.ceil(load.block_bytes / MIB))

    def utilisation(self, loads: list[Load]) -> float:
        """The larger of the IOPS-cap and baseline-throughput shares the loads use."""
        units = sum(self.io_units(x) for x in loads)
        mb_s_decimal = sum(x.mb_s_decimal for x in loads)
        return max(units / self.iops_cap, mb_s_decimal / max(self.baseline_mb_s_decimal, 1e-9))

    def times_ms(self, loads: list[Load]) -> list[float] | None:
        """Per-load service time in the volume's queue; None when the cap or baseline is exceeded."""
        used = self.utilisation(loads)
        if used >= SATURATION:
            return None
        factor = queue_factor(used)
        rate = max(self.baseline_mb_s_decimal, 1e-9)
        return [(self.latency_ms + x.block_bytes / (rate * 1000.0)) * factor for x in loads]
