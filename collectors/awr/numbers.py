"""Numbers as AWR and Statspack reports print them.

Cells carry thousands separators (``4,075,643``), ``&#160;`` or blanks for "nothing",
SQL*Plus overflow marks (``####``), size suffixes and, from 12c, time units. The IOStat
sections say: "'Data' columns suffixed with M,G,T,P are in multiples of 1024, other columns
suffixed with K,M,G,T,P are in multiples of 1000", hence two suffix scales.

A database with European NLS settings prints ``0,56`` and ``4.075.643``. Which separator is
the decimal one is decided once per report from the numeric cells the readers actually parse
(a first pass in survey mode, :func:`reading` with no decimal), never from the whole text:
an ASH ``Sid, Serial#`` cell such as ``13071,63938`` or an ``Obj#`` is an identifier, not a
figure, and has no vote. The decision is then held for the parse; a cell whose separators do
not fit it is not a number (``1,5`` in a report that groups with commas), so a swapped
separator is refused naming its section and column, never read as a figure a hundred times
too large. An overflow mark makes the figure unknown and is noted, so the reader can say
which figure it lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache

from advisor.errors import BadInput
from advisor.numerals import PLAIN as _PLAIN
from advisor.numerals import convention as _convention

_SUFFIX = re.compile(r"^(.*?)(?:([KMGTP])|\s?(ns|us|\u00b5s|\u03bcs|ms|s))?$", re.IGNORECASE)
_STEP = {"K": 1, "M": 2, "G": 3, "T": 4, "P": 5}
TIME_UNITS_MS = {"ns": 1e-6, "us": 1e-3, "\u00b5s": 1e-3, "\u03bcs": 1e-3, "ms": 1.0, "s": 1000.0}
"""Every time unit a report prints after a figure (12.2+ wait, histogram and IOStat cells), in ms.

Oracle writes ``773.50us``, ``4.92ms``, ``.00ns`` and ``60.00 s`` (a blank before a lone ``s``);
a browser-saved page may carry ``\u00b5s``. One table, so every reader converts alike."""
_UNIT_LIKE = re.compile(r"^[-+]?[\d.,]*\d[\d.,]*\s?([^\W\d_]{2,16})$")


@dataclass
class Reading:
    """How the report being read prints numbers, and the figures its cells could not give.

    With *decimal* None the reading is a survey: each parsed cell votes for the convention
    it proves (:attr:`votes`, the first cell of each with where it was), and a cell that only
    reads with a decimal comma is read so (:attr:`comma_read`) so the pass can go on.
    """

    decimal: str | None = "."
    notes: list[str] = field(default_factory=list)
    votes: dict[str, tuple[str, str]] = field(default_factory=dict)  # "," or "." -> (cell, where)
    comma_read: bool = False

    def decide(self, path: str) -> str:
        """The report's decimal separator from the votes; BadInput naming both cells when they disagree."""
        if len(self.votes) == 2:
            (comma, comma_at), (point, point_at) = self.votes[","], self.votes["."]
            raise BadInput(f"{path}: numbers use both decimal separators ('{comma}' in {comma_at} reads with a "
                           f"decimal comma, '{point}' in {point_at} with a decimal point); cannot tell which "
                           "figures are which", hint="print the report again with NLS_NUMERIC_CHARACTERS='.,'")
        return next(iter(self.votes), ".")


_READING: ContextVar[Reading | None] = ContextVar("report_reading", default=None)


@contextmanager
def reading(decimal: str | None = ".") -> Iterator[Reading]:
    """Parse numbers with *decimal* as the decimal separator inside the block (None: survey); collect notes."""
    current = Reading(decimal)
    token = _READING.set(current)
    try:
        yield current
    finally:
        _READING.reset(token)


def note(message: str) -> None:
    """Record a figure the report printed but the reader could not keep (an overflow mark).

    Outside :func:`reading` (a section parsed on its own) there is no report to tell.
    """
    current = _READING.get()
    if current is not None:
        current.notes.append(message)


def clean(cell: str | None) -> str:
    """Cell text without no-break spaces and padding (separators are kept: see :func:`number`)."""
    if cell is None:
        return ""
    if "&" in cell or "\xa0" in cell:
        cell = cell.replace("&#160;", "").replace("\xa0", "").replace("&nbsp;", "")
    return cell.strip()


def is_overflow(cell: str | None) -> bool:
    """Whether *cell* is an overflow mark (``######``): SQL*Plus's way of saying "too wide"."""
    if not cell or ("#" not in cell and "*" not in cell):
        return False
    text = clean(cell)
    return bool(text) and set(text) <= {"#", "*"}


def unknown_unit(cell: str | None) -> str | None:
    """The word after a figure that is neither a size suffix nor a known time unit (``3.2 fortnights``).

    >>> unknown_unit("3.2 fortnights"), unknown_unit("2.72ms"), unknown_unit("USERS")
    ('fortnights', None, None)
    """
    match = _UNIT_LIKE.match(clean(cell))
    if match is None or match.group(1).lower() in TIME_UNITS_MS or match.group(1).upper() in _STEP:
        return None
    return match.group(1)


def refusal(cell: str | None, place: str, plain: str = "") -> BadInput:
    """The one-line refusal of a cell that is not a figure, naming *place* (section, line, column).

    A figure with a unit advisor does not know says so and lists the units it reads, rather
    than calling the report garbled.
    """
    unit = unknown_unit(cell)
    if unit is not None:
        known = ", ".join(u for u in TIME_UNITS_MS if u.isascii())
        return BadInput(f"{place}: {clean(cell)!r} carries the unit {unit!r}, which is not a time unit a report "
                        f"prints (known: {known})")
    return BadInput(plain or f"{place}: {clean(cell)!r} is not a number (garbled report?)")


def number(cell: str | None, *, binary: bool = False, where: str = "", vote: bool = True,
           time_unit: str = "ms") -> float | None:
    """A report number: None for empty or overflowed cells, suffixes applied.

    >>> number("4,075,643"), number("&#160;"), number("1.5K"), number("2M", binary=True), number("####")
    (4075643.0, None, 1500.0, 2097152.0, None)

    Time cells come out in *time_unit* (milliseconds unless the column counts in another unit,
    e.g. seconds for "Total Wait Time (s)"), whatever unit the report wrote; a plain figure is
    already in the column's unit:

    >>> number("773.50us"), number("4.92ms"), number(".00ns"), number("6.5"), number("60.00 s")
    (0.7735, 4.92, 0.0, 6.5, 60000.0)
    >>> number("2997.63ms", time_unit="s"), number("3,615", time_unit="s")
    (2.99763, 3615.0)

    >>> with reading(","):
    ...     number("4.075.643"), number("0,56")
    (4075643.0, 0.56)

    *where* (section, line and column) is what a survey remembers of the cell; an identifier
    column (``Obj#``) and a reader's guess at whether a cell is a number pass ``vote=False``.
    """
    text = clean(cell)
    if not text or is_overflow(text):
        return None
    current = _READING.get()
    if current is not None and current.decimal is None:
        return _survey(current, text, binary, where, vote, time_unit)
    value = _parse(text, current.decimal if current is not None and current.decimal else ".", binary, time_unit)
    if value is None:
        raise ValueError(f"not a number: {cell!r}")
    return value


def _survey(current: Reading, text: str, binary: bool, where: str, vote: bool, time_unit: str) -> float:
    """A cell read in survey mode: its vote recorded, read with whichever convention fits it."""
    value = _parse(text, ".", binary, time_unit)
    if value is None:
        value = _parse(text, ",", binary, time_unit)
        if value is None:
            raise ValueError(f"not a number: {text!r}")
        current.comma_read = True
    if vote:
        match = _SUFFIX.match(text)
        digits = (match.group(1) if match else text).lstrip("+-")
        found = _convention(digits) if digits[:1].isdigit() or digits[:1] in ",." else None
        if found is not None and found not in current.votes:
            current.votes[found] = (text, where or "a figure")
    return value


@lru_cache(maxsize=8192)
def _parse(text: str, decimal: str, binary: bool, time_unit: str = "ms") -> float | None:
    """*text* as a number with *decimal* as its decimal separator; None when it is not one.

    Cached: a report repeats the same few thousand cells (0, 0.0, 1.0 ...) many times.
    """
    match = _SUFFIX.match(text)
    assert match is not None  # the pattern matches any text
    digits, step, unit = match.groups()
    if not digits or not any(c.isdigit() for c in digits) or not _PLAIN[decimal].match(digits):
        return None
    group = "," if decimal == "." else "."
    value = float(digits.replace(group, "").replace(decimal, "."))
    if step:
        value *= (1024.0 if binary else 1000.0) ** _STEP[step.upper()]
    elif unit:
        value *= TIME_UNITS_MS[unit.lower()] / TIME_UNITS_MS[time_unit]
    return value


def is_number(cell: str | None) -> bool:
    """Whether *cell* stands for a report number: it parses, is an overflow mark, or is a figure with
    a unit advisor does not know (so the reader refuses that cell by name instead of taking the
    row for a name line); empty cells do not."""
    if is_overflow(cell) or unknown_unit(cell) is not None:
        return True
    try:
        return number(cell, vote=False) is not None
    except ValueError:
        return False
