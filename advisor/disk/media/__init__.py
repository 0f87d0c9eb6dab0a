"""Media models for tiered plans: what one IO costs on each kind of device.

Rotating media (``hdd``, ``smr-dm``, ``smr-hm``) keep the zone physics of
:mod:`advisor.disk.physics` (the zone optimizer orders areas on them); ``smr`` adds what
random writes cost once the media cache is full. Solid state (``nvme``, ``ssd``) and
``array`` have no zones: a latency by IO size with queueing on a throughput ceiling.
``cloud-hdd`` volumes are a token bucket: an IOPS cap where every IO up to 1 MiB costs one
and a throughput baseline per TiB. Each model names where its numbers come from
(``source``); :mod:`advisor.disk.media.build` turns an inventory entry into one.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.units import DISK_MB

SATURATION = 0.95
"""Utilisation above which a device is treated as unable to keep up (its queue grows without
bound): the planner never puts more load on a device than this."""


@dataclass(frozen=True, slots=True)
class Load:
    """The IO one area puts on a device, per second."""

    name: str
    read_iops: float
    write_iops: float
    block_bytes: int
    sequential: bool

    @property
    def iops(self) -> float:
        """Reads and writes per second."""
        return self.read_iops + self.write_iops

    @property
    def mb_s_decimal(self) -> float:
        """Bytes moved per second, in MB (10^6)."""
        return self.iops * self.block_bytes / DISK_MB


def queue_factor(utilisation: float) -> float:
    """Mean response over service time of a single queue (M/M/1): 1 / (1 - u)."""
    return 1.0 / (1.0 - min(utilisation, SATURATION))
