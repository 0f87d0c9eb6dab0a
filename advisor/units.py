"""Sizes and rates in one place: how advisor reads a size a person typed and prints one back.

Bytes are counted in binary units where the suffix says so (KiB, MiB, GiB, TiB) and in
decimal SI units for KB/MB/GB/TB, as drive vendors label capacities: a "16 TB" disk holds
16 * 10^12 bytes.
"""

from __future__ import annotations

import re

from advisor.errors import BadInput

_CAPACITY_UNITS = {
    "": 1, "b": 1,
    "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30,
    "t": 1 << 40, "tib": 1 << 40, "p": 1 << 50, "pib": 1 << 50,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "pb": 10**15,
}


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
    if isinstance(value, int):
        number, unit = float(value), ""
    elif isinstance(value, float):
        number, unit = value, ""
    elif isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", value)
        if not match or match.group(2).lower() not in _CAPACITY_UNITS:
            raise BadInput(f"{where}: cannot read capacity {value!r}", hint='use bytes or e.g. "960 GB", "16 TiB"')
        number, unit = float(match.group(1)), match.group(2).lower()
    else:
        raise BadInput(f"{where}: capacity {value!r} is not a size")
    size = int(number * _CAPACITY_UNITS[unit])
    if size <= 0:
        raise BadInput(f"{where}: capacity must be more than 0 bytes")
    return size
