"""Sizes, rates and drive constants: one definition for every module.

Every size constant is defined here and imported (tests/packaging/test_unit_constants.py
fails on a size written out in digits anywhere else). One meaning per name:

* Sizes and the rates of every document are binary, as docs/json-format.md states: a KiB is
  1,024 bytes, a MiB 1,048,576 (iostat's MB), so ``read_mb_s`` and ``mean_read_kb`` mean the
  same thing whether they come from two snapshots, one snapshot or a report import. Sizes a
  user types (``4k``, ``512M``, ``1.5GiB``) are binary too, like ``truncate`` and ``fio``.
* Drive figures keep the datasheets' megabyte, :data:`DISK_MB` (10^6 bytes): the presets, a
  drive spec's ``r_od_mb_s_decimal``, the disk models and what ``advisor disk``/``advisor bench``
  print. Such a figure enters a document only under a name that says so (a disk profile's
  ``bytes_per_s``), never as an ``_mb_s`` field.
* A device capacity in an inventory (:func:`parse_capacity`): ``"16 TB"`` means 16 * 10^12
  bytes, as drives are sold, and ``"16 TiB"`` 16 * 2^40.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Literal, get_args

from advisor.errors import BadInput

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30
TIB = 1 << 40
PIB = 1 << 50
EIB = 1 << 60

DEFAULT_BLOCK_BYTES = 8 * KIB
"""PostgreSQL's BLCKSZ as built by default, when a snapshot does not state ``block_size``."""

DISK_MB = 10**6
"""The megabyte of drive rates (presets, drive specs, the disk models, ``disk``/``bench`` output), as
datasheets quote them; a document stores such a rate in bytes per second."""
DISK_GB = 10**9
"""The gigabyte drives and inventories are sold in: what a capacity or a tier's size prints as "GB"."""

_SIZE_UNITS = {"": 1, "k": KIB, "m": MIB, "g": GIB, "t": TIB}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", flags=re.IGNORECASE)

STANDARD_RPM = (4200, 5400, 5900, 7200, 10000, 15000)
"""Rotation speeds drives are sold with: fitted or estimated speeds snap to one of these."""

DRIVE_RPM_RANGE = (1000, 30000)
"""Slowest and fastest rotation a drive model accepts: a rotation outside it is no drive's, so
an estimate outside it is not a rotation (a busy host's scheduling, a time-scaled emulation)."""

CacheMode = Literal["off", "volatile", "lying"]
"""Write cache of a simulated or emulated drive: none, volatile (flush honoured), or lying."""

CACHE_MODES: tuple[CacheMode, ...] = get_args(CacheMode)


def parse_size(text: str) -> int:
    """``4k``, ``512M``, ``1.5GiB`` or a byte count → bytes (binary units; must be positive).

    >>> parse_size("4k"), parse_size("512MiB"), parse_size("1.5G"), parse_size("4096B")
    (4096, 536870912, 1610612736, 4096)
    """
    match = _SIZE.fullmatch(text)
    if not match or float(match.group(1)) <= 0:
        raise BadInput(f"cannot read size {text!r}", hint="use a positive size like 4k, 512M, 2G or a byte count")
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])


def human_bytes(count: float | None) -> str:
    """A size for people, in binary units; ``-`` when unknown.

    >>> human_bytes(1536), human_bytes(3 * GIB), human_bytes(512), human_bytes(None)
    ('1.5 KiB', '3.0 GiB', '512 B', '-')
    """
    if count is None:
        return "-"
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def mib_per_s(nbytes: float, seconds: float) -> float:
    """Bytes over an interval as MiB/s (the ``_mb_s`` fields)."""
    return nbytes / MIB / seconds


def mean_kib(nbytes: float | None, count: int | None) -> float | None:
    """Mean IO size in KiB (the ``mean_*_kb`` fields); None without IO or without a byte count.

    >>> mean_kib(8192 * 10, 10), mean_kib(100, 0)
    (8.0, None)
    """
    if nbytes is None or not count:
        return None
    return nbytes / KIB / count


def mean_kib_of_rates(mib_s: float, iops: float) -> float | None:
    """Mean IO size in KiB from a MiB/s rate and an IOPS rate; None without IO.

    >>> mean_kib_of_rates(0.5, 64.0), mean_kib_of_rates(1.0, 0.0)
    (8.0, None)
    """
    return mib_s * 1024 / iops if iops > 0 else None


_CAPACITY_UNITS = {
    "": 1, "b": 1,
    "k": KIB, "kib": KIB, "m": MIB, "mib": MIB, "g": GIB, "gib": GIB, "t": TIB, "tib": TIB,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "pb": 10**15,
}


MAX_CAPACITY_BYTES = 10**18
"""1 EB: more than any device or array a plan places areas on; a larger figure is a typo."""


def parse_capacity(value: object, where: str = "capacity") -> int:
    """A device capacity: a byte count or a size such as ``"1 TB"`` (10^12) or ``"16 TiB"`` (2^40).

    >>> parse_capacity("16 TB")
    16000000000000
    >>> parse_capacity("1.5TiB")
    1649267441664
    >>> parse_capacity(4096)
    4096
    """
    if isinstance(value, bool):
        raise BadInput(f"{where}: capacity {value!r} is not a size")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadInput(f"{where}: capacity {value!r} is not a size", hint='use bytes or e.g. "960 GB", "16 TiB"')
    if isinstance(value, int | float):
        exact = Fraction(value)
    elif isinstance(value, str):
        match = re.fullmatch(r"\s*(\d{1,30}(?:\.\d{1,30})?)\s*([a-zA-Z]*)\s*", value)
        if not match or match.group(2).lower() not in _CAPACITY_UNITS:
            raise BadInput(f"{where}: cannot read capacity {value!r}", hint='use bytes or e.g. "960 GB", "16 TiB"')
        exact = Fraction(match.group(1)) * _CAPACITY_UNITS[match.group(2).lower()]
    else:
        raise BadInput(f"{where}: capacity {value!r} is not a size")
    if exact <= 0:
        raise BadInput(f"{where}: capacity must be more than 0 bytes")
    if exact > MAX_CAPACITY_BYTES:
        raise BadInput(f"{where}: capacity {value!r} is more than 1 EB; no device holds that",
                       hint='use bytes or e.g. "960 GB", "16 TiB"')
    if exact.denominator != 1:
        raise BadInput(f"{where}: capacity {value!r} is not a whole number of bytes")
    return int(exact)
