"""Drive-managed and host-managed SMR: reads like the CMR drive, random writes pay for bands.

A drive-managed SMR disk takes random writes into a CMR media cache and later rewrites the
shingled bands they belong to. While the cache has room a random write costs what it costs
on CMR; a sustained stream of random writes fills it in ``cache / rate`` seconds, after which
writes proceed at the band-cleaning rate (the latency cliff ``advisor bench --tests smr``
looks for). The planner assumes a stream lasts longer than ``window_s`` (an hour of busy
time) unless the cache holds that long. Host-managed SMR accepts only sequential writes in
its zones, so random writes cannot be placed there at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.disk.media import SATURATION

WINDOW_S = 3600.0
"""How long a write stream is assumed to last when deciding if the media cache overflows."""


@dataclass(frozen=True, slots=True)
class SmrWrites:
    """The write side of a shingled drive (the read side is the zone model of its CMR twin)."""

    host_managed: bool
    media_cache_bytes: int
    cleaning_iops: float  # random writes per second the drive sustains once the cache is full
    source: str = ""

    def overflows(self, random_write_iops: float, block_bytes: int) -> bool:
        """Whether a sustained random-write stream fills the media cache within the window."""
        if random_write_iops <= 0:
            return False
        net = random_write_iops * block_bytes
        return self.media_cache_bytes / net < WINDOW_S

    def write_ms(self, random_write_iops: float, block_bytes: int, cmr_ms: float) -> float | None:
        """Mean time of one random write on this drive, or None when it cannot keep up.

        Below the overflow point the CMR time; above it the band-cleaning queue
        (M/M/1 with service rate ``cleaning_iops``).
        """
        if random_write_iops <= 0:
            return cmr_ms
        if self.host_managed:
            return None
        if not self.overflows(random_write_iops, block_bytes):
            return cmr_ms
        if random_write_iops >= self.cleaning_iops * SATURATION:
            return None
        return max(cmr_ms, 1000.0 / (self.cleaning_iops - random_write_iops))
