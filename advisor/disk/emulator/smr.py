"""Drive-managed SMR for the emulated disk: a media cache in front of shingled bands.

A drive-managed SMR disk cannot overwrite a track in place (the next, overlapping track
would be damaged), so it lands writes that do not continue a sequential stream in a
persistent CMR *media cache* and later *cleans* them into their shingled bands: read the
whole band, merge, rewrite it. While the cache has room, random writes cost about a
sequential append; once it is full every new write waits for a band to be cleaned, and
latency falls off a cliff (tens of ms to seconds). sysfs says nothing (``queue/zoned`` is
``none``): only a sustained write test sees it (``advisor bench --tests smr``).

The layer wraps the CMR mechanism (seeks, rotation, zones) and adds only that: cache
appends, band cleaning when the cache is full, and cleaning in idle time. Reads and
flushes go to the mechanism unchanged (data read from the cache is not modelled apart).

Default figures, from Aghayev & Desnoyers, "Skylight — A Window on Shingled Disk
Operation" (FAST 2015), measured on Seagate drive-managed SMR disks: a persistent cache
of about 20–25 GiB on 5–8 TB drives (≈ 0.4 % of capacity) at the outer diameter, bands of
17–36 MiB, and a band cleaning that reads and rewrites the whole band. The reference note
(shared reference tiers.md § SMR) gives the consequence: sustained random writes fall off
a cliff when the cache fills.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from advisor.errors import BadInput
from advisor.units import DISK_MB, MIB

#: ≈ 20 GiB of persistent cache on a 5 TB drive (Skylight, FAST 2015).
CACHE_FRACTION = 0.004
#: Bands of 17–36 MiB were measured; 32 MiB is typical of the outer zones.
BAND_BYTES = 32 * MIB
#: A band clean reads and rewrites the band: at ~120 MB/s each way, 60 MB of band per second.
CLEAN_MB_S_DECIMAL = 60.0


@dataclass(frozen=True, slots=True)
class SmrSpec:
    """Media cache size, band size and cleaning speed of an emulated drive-managed SMR disk."""

    media_cache_bytes: int
    band_bytes: int = BAND_BYTES
    clean_mb_s_decimal: float = CLEAN_MB_S_DECIMAL

    def __post_init__(self) -> None:
        if self.band_bytes <= 0 or self.media_cache_bytes < self.band_bytes or self.clean_mb_s_decimal <= 0:
            raise BadInput("SMR needs band > 0, a media cache of at least one band and a positive cleaning speed")

    @property
    def clean_s(self) -> float:
        """Seconds one band clean takes (read, merge, rewrite)."""
        return self.band_bytes / (self.clean_mb_s_decimal * DISK_MB)

    def as_kwargs(self) -> dict[str, Any]:
        """Plain JSON for the emulator's server process."""
        return asdict(self)


def default_spec(size_bytes: int) -> SmrSpec:
    """The published proportions on an emulated disk of *size_bytes* (at least four bands of cache)."""
    band = min(BAND_BYTES, max(MIB, size_bytes // 64 // MIB * MIB))
    cache = max(4 * band, int(size_bytes * CACHE_FRACTION) // band * band)
    return SmrSpec(media_cache_bytes=cache, band_bytes=band)


class SmrTiming:
    """A CMR timing model behind a media cache with band cleaning (see the module doc)."""

    def __init__(self, inner: Any, spec: SmrSpec) -> None:
        self.inner, self.spec = inner, spec
        self.cached = 0  # bytes in the media cache
        self.dirty: OrderedDict[int, int] = OrderedDict()  # band → cached bytes, oldest first
        self.cache_head = 0  # next append position in the cache (it sits at the outer edge)
        self.stream_end = -1  # end of the last write: a write starting there is sequential
        self.head_free_s = 0.0
        self.idle_credit_s = 0.0
        self.cleaned_bands = 0

    def _clean_oldest(self) -> None:
        band, freed = self.dirty.popitem(last=False)
        self.cached -= freed
        self.cleaned_bands += 1

    def _clean_while_idle(self, start_s: float) -> None:
        """A drive cleans bands when nothing is asked of it."""
        if start_s > self.head_free_s:
            self.idle_credit_s += start_s - self.head_free_s
        while self.dirty and self.idle_credit_s >= self.spec.clean_s:
            self.idle_credit_s -= self.spec.clean_s
            self._clean_oldest()
        if not self.dirty:
            self.idle_credit_s = 0.0

    def service(self, op: str, offset_bytes: int, length_bytes: int, start_s: float) -> float:
        """Finish time of one request; random writes go through the media cache."""
        self._clean_while_idle(start_s)
        if op != "write" or offset_bytes == self.stream_end:
            finish: float = self.inner.service(op, offset_bytes, length_bytes, start_s)
            if op == "write":
                self.stream_end = offset_bytes + length_bytes
            self.head_free_s = max(self.head_free_s, finish)
            return finish
        begin = start_s
        while self.cached + length_bytes > self.spec.media_cache_bytes and self.dirty:
            begin += self.spec.clean_s  # the write waits for a band to be cleaned
            self._clean_oldest()
        position = self.cache_head % max(self.spec.media_cache_bytes, length_bytes)
        finish = self.inner.service("write", position, length_bytes, begin)
        self.cache_head = position + length_bytes
        self.stream_end = offset_bytes + length_bytes
        band = offset_bytes // self.spec.band_bytes
        self.dirty[band] = self.dirty.get(band, 0) + length_bytes
        self.cached += length_bytes
        self.head_free_s = max(self.head_free_s, finish)
        return finish

    def choose(self, pending: Sequence[Any], now_s: float) -> int:
        """The mechanism's own scheduling order."""
        index: int = self.inner.choose(pending, now_s)
        return index
