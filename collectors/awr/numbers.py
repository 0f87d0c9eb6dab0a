"""Numbers as AWR and Statspack reports print them.

Cells carry thousands separators (``4,075,643``), ``&#160;`` or blanks for "nothing",
SQL*Plus overflow marks (``####``), size suffixes and, from 12c, time units. The IOStat
sections say: "'Data' columns suffixed with M,G,T,P are in multiples of 1024, other columns
suffixed with K,M,G,T,P are in multiples of 1000", hence two suffix scales.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"^([-+]?(?:\d+(?:\.\d*)?|\.\d+))(?:([KMGTP])|(ns|us|ms|s))?$", re.IGNORECASE)
_STEP = {"K": 1, "M": 2, "G": 3, "T": 4, "P": 5}
_TIME_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1000.0}


def clean(cell: str | None) -> str:
    """Cell text without separators, no-break spaces and padding."""
    if cell is None:
        return ""
    return cell.replace("&#160;", "").replace("\xa0", "").replace("&nbsp;", "").replace(",", "").strip()


def number(cell: str | None, *, binary: bool = False) -> float | None:
    """A report number: None for empty or overflowed cells, suffixes applied.

    >>> number("4,075,643"), number("&#160;"), number("1.5K"), number("2M", binary=True), number("####")
    (4075643.0, None, 1500.0, 2097152.0, None)

    Time cells come out in milliseconds, whatever unit the report wrote:

    >>> number("773.50us"), number("4.92ms"), number(".00ns"), number("6.5")
    (0.7735, 4.92, 0.0, 6.5)
    """
    text = clean(cell)
    if not text or set(text) <= {"#", "*"}:
        return None
    match = _NUMBER.match(text)
    if match is None:
        raise ValueError(f"not a number: {cell!r}")
    value = float(match.group(1))
    if match.group(2):
        value *= (1024.0 if binary else 1000.0) ** _STEP[match.group(2).upper()]
    elif match.group(3):
        value *= _TIME_MS[match.group(3).lower()]
    return value


def is_number(cell: str | None) -> bool:
    """Whether *cell* parses as a report number (empty cells do not)."""
    try:
        return number(cell) is not None
    except ValueError:
        return False
