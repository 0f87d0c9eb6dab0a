"""How numbers are written: which separator of ``4,075`` or ``0,56`` is the decimal one.

A database with European NLS settings prints ``0,56`` and ``4.075.643`` where another prints
``0.56`` and ``4,075,643``. A reader decides the convention once per input from the cells it
reads (each cell that proves one votes; both proven is a refusal naming the two cells), and
then reads every cell by it: a cell whose separators do not fit (``1,5`` in an input that
groups with commas) is not a number, never a figure a hundred times too large. The AWR and
Statspack reader (``collectors/awr/numbers.py``) and the sizes file reader
(:mod:`advisor.sizes.formats`) share these rules.
"""

from __future__ import annotations

import re
from functools import lru_cache

PLAIN = {".": re.compile(r"^[-+]?(?:\d{1,3}(?:,\d{3})+|\d*)(?:\.\d*)?$"),
         ",": re.compile(r"^[-+]?(?:\d{1,3}(?:\.\d{3})+|\d*)(?:,\d*)?$")}
"""Digits as written under each decimal separator: optional groups of three, an optional fraction."""


@lru_cache(maxsize=8192)
def convention(token: str) -> str | None:
    """Which decimal separator *token* (digits and separators) proves, or None when it fits both.

    >>> convention("0,56"), convention("4,075"), convention("1.234.567"), convention("5,3687")
    (',', None, ',', ',')
    """
    if "," in token and "." in token:
        return "." if token.rindex(".") > token.rindex(",") else ","
    sep = "," if "," in token else "." if "." in token else None
    if sep is None:
        return None
    parts = token.split(sep)
    if not parts[0]:
        return sep  # ".5" or ",5": only a decimal separator starts a number
    grouped = len(parts[0]) <= 3 and parts[0][0] != "0" and all(len(p) == 3 for p in parts[1:])
    if len(parts) == 2:
        return None if grouped else sep  # "4,075" fits both; "0,56" and "56.1" do not
    return ("." if sep == "," else ",") if grouped else None  # "1.234.567" groups with dots


def plain_number(digits: str, decimal: str) -> str | None:
    """*digits* written under *decimal* as Python writes them (``1.234,5`` -> ``1234.5``); None when they do not fit."""
    if not any(c.isdigit() for c in digits) or not PLAIN[decimal].match(digits):
        return None
    group = "," if decimal == "." else "."
    return digits.replace(group, "").replace(decimal, ".")
