"""Oracle's time and size units, converted in one place.

Every Oracle view counts in its own unit: V$FILESTAT/V$TEMPSTAT times (READTIM, WRITETIM,
SINGLEBLKRDTIM) and V$SYSTEM_WAIT_CLASS.TIME_WAITED are centiseconds, V$IOSTAT_FILE service
times are milliseconds and its sizes megabytes, V$SYSTEM_EVENT.TIME_WAITED_MICRO and
V$SYS_TIME_MODEL.VALUE are microseconds. Mixing them up is off by 10x or 1000x, silently, so
no other module multiplies a raw Oracle figure by a constant.

When TIMED_STATISTICS is FALSE Oracle reports every time as 0; a 0 there is "not measured",
not "instant", so the converters return None when timing is off.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from advisor.units import MIB


def number(value: Any) -> float:
    """A NUMBER column as float (oracledb returns int, float or Decimal); NULL is 0."""
    if value is None:
        return 0.0
    if isinstance(value, Decimal):
        return float(value)
    return float(value)


def count(value: Any) -> int:
    """A counter column as int (NUMBER may come back as float or Decimal); NULL is 0."""
    if value is None:
        return 0
    return int(value)


def centiseconds_to_ms(value: Any, timed: bool) -> float | None:
    """V$FILESTAT READTIM/WRITETIM, V$SYSTEM_WAIT_CLASS TIME_WAITED: hundredths of a second."""
    return number(value) * 10.0 if timed else None


def centiseconds_to_s(value: Any, timed: bool) -> float | None:
    """Centiseconds to seconds (wait-class totals)."""
    return number(value) / 100.0 if timed else None


def ms(value: Any, timed: bool) -> float | None:
    """V$IOSTAT_FILE *_SERVICETIME and SMALL_SYNC_READ_LATENCY: already milliseconds."""
    return number(value) if timed else None


def microseconds_to_s(value: Any, timed: bool) -> float | None:
    """V$SYSTEM_EVENT TIME_WAITED_MICRO, V$SYS_TIME_MODEL VALUE: microseconds."""
    return number(value) / 1_000_000.0 if timed else None


def microseconds_to_ms(value: Any, timed: bool) -> float | None:
    """Microseconds to milliseconds (per-event average latencies)."""
    return number(value) / 1000.0 if timed else None


def megabytes_to_bytes(value: Any) -> int:
    """V$IOSTAT_FILE *_MEGABYTES (binary megabytes: MiB) to bytes."""
    return int(number(value) * MIB)


def blocks_to_bytes(blocks: Any, block_size: Any) -> int:
    """V$FILESTAT PHYBLKRD/PHYBLKWRT times the file's block size."""
    return count(blocks) * count(block_size)


def version_num(version: str) -> int:
    """Oracle "19.21.0.0.0" -> 190000 + 21*100: major*10000 + minor*100, as ServerInfo documents.

    >>> version_num("11.2.0.4.0"), version_num("12.1.0.2.0"), version_num("19.0.0.0.0")
    (110200, 120100, 190000)
    """
    parts = [int(p) if p.isdigit() else 0 for p in version.split(".")[:2]]
    while len(parts) < 2:
        parts.append(0)
    return parts[0] * 10000 + min(parts[1], 99) * 100


def is_true(value: Any) -> bool:
    """Oracle parameter booleans: 'TRUE' / 'FALSE' strings."""
    return str(value).strip().upper() == "TRUE"
