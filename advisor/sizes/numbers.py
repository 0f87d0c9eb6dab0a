"""The BYTES cells of a sizes file, read as written.

SQL*Plus prints a size as a byte count, or as ``3.4360E+10`` when it overflows NUMWIDTH,
and under a decimal-comma NLS as ``5,3687E+10``; a hand-made or psql file may say ``12 MB``
(binary, as pg_size_pretty means it). Which separator is the decimal one is decided from the
file's own cells (:func:`advisor.numerals.convention`, as the report reader decides it): each
cell votes while the file is read (:meth:`SizeCells.vote`) and the sizes are read once all
have voted (:meth:`SizeCells.read`). A size is a whole number of bytes up to
:data:`MAX_FILE_BYTES`; anything else is one line naming the file and line.
"""

from __future__ import annotations

import re
from decimal import Decimal, DecimalException

from advisor.errors import BadInput
from advisor.numerals import convention, plain_number
from advisor.units import EIB, GIB, KIB, MIB, TIB

MAX_FILE_BYTES = EIB
"""The largest size a row may state: no database file (nor an FRA) holds an exbibyte (Oracle's
largest, a bigfile tablespace of 32 KiB blocks, is 128 TiB)."""

_SIZE = re.compile(r"^([0-9.,]*[0-9][0-9.,]*)(?:[eE]([+-]?[0-9]{1,6}))?\s*([A-Za-z]*)$")
_UNITS = {"": 1, "b": 1, "bytes": 1, "byte": 1, "k": KIB, "kb": KIB, "kib": KIB, "m": MIB, "mb": MIB,
          "mib": MIB, "g": GIB, "gb": GIB, "gib": GIB, "t": TIB, "tb": TIB, "tib": TIB}
"""Binary multiples, as pg_size_pretty and SQL*Plus users mean them (``12 MB`` = 12 MiB)."""
_CANONICAL = {"b": "", "bytes": "", "byte": "", "kb": "k", "kib": "k", "mb": "m", "mib": "m", "gb": "g",
              "gib": "g", "tb": "t", "tib": "t"}


class SizeCells:
    """The size cells of one file: their votes on the decimal separator, their unit, then their values."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.votes: dict[str, tuple[int, str]] = {}  # "," or "." -> (line, cell) of the first that proves it
        self.unit: tuple[int, str, str] | None = None  # line, unit, the cell as written

    def _parts(self, line: int, text: str) -> tuple[str, str | None, str]:
        cell = text.strip()
        match = _SIZE.match(cell)
        unit = match.group(3).lower() if match else ""
        if not match or unit not in _UNITS:
            what = "empty" if not cell else f"{cell!r}, not a size"
            raise BadInput(f"{self.path} line {line}: BYTES is {what} (truncated row?)")
        return match.group(1), match.group(2), _CANONICAL.get(unit, unit)

    def vote(self, line: int, text: str) -> None:
        """Check the cell's shape and unit, and note which decimal separator it proves (if any)."""
        mantissa, _exponent, unit = self._parts(line, text)
        if self.unit is None:
            self.unit = (line, unit, text.strip())
        elif unit != self.unit[1]:
            raise BadInput(f"{self.path} line {line}: size {text.strip()!r} and line {self.unit[0]}'s "
                           f"{self.unit[2]!r} are in different units; give every size in one unit "
                           "(the query prints bytes)")
        found = convention(mantissa)
        if found is not None and found not in self.votes:
            self.votes[found] = (line, text.strip())
            if len(self.votes) == 2:
                (comma_line, comma), (point_line, point) = self.votes[","], self.votes["."]
                raise BadInput(f"{self.path}: sizes use both decimal separators (line {comma_line}: {comma!r} "
                               f"reads with a decimal comma, line {point_line}: {point!r} with a decimal point); "
                               "cannot tell which figures are which", hint="print the sizes again with "
                               "NLS_NUMERIC_CHARACTERS='.,'")

    def read(self, line: int, text: str) -> tuple[int, str]:
        """The cell's bytes and its unit as written ("" for bytes), by the file's decimal separator."""
        mantissa, exponent, unit = self._parts(line, text)
        decimal = next(iter(self.votes), ".")
        digits = plain_number(mantissa, decimal)
        if digits is None:
            raise BadInput(f"{self.path} line {line}: BYTES is {text.strip()!r}, not a size in this file's "
                           f"numbers (decimal {'comma' if decimal == ',' else 'point'})")
        try:
            value = Decimal(digits + (f"e{exponent}" if exponent else "")) * _UNITS[unit or ""]
        except DecimalException:  # an exponent no size has
            value = Decimal(MAX_FILE_BYTES + 1)
        if value > MAX_FILE_BYTES:
            raise BadInput(f"{self.path} line {line}: BYTES {text.strip()!r} is more than a database file holds "
                           "(1 EiB); refused")
        if not unit and value != value.to_integral_value():
            raise BadInput(f"{self.path} line {line}: BYTES {text.strip()!r} is not a whole number of bytes")
        return int(value), unit
