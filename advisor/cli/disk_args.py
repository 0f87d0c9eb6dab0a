"""Parsing of `advisor disk` arguments: sizes, LBA bands and stream descriptions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from advisor.errors import BadInput
from advisor.units import parse_size

if TYPE_CHECKING:
    from advisor.disk.simulate import StreamSpec



def parse_band(text: str) -> tuple[float, float]:
    """``LO:HI`` as fractions of the disk (``0:0.01``) or percentages (``0%:1%``)."""
    parts = text.split(":")
    try:
        lo, hi = (float(p.rstrip("%")) / (100.0 if p.endswith("%") else 1.0) for p in parts)
    except ValueError:
        raise BadInput(f"cannot read band {text!r}", hint="use LO:HI fractions, e.g. 0:0.01 or 99%:100%") from None
    if not 0.0 <= lo < hi <= 1.0:
        raise BadInput(f"band {text!r} must satisfy 0 ≤ LO < HI ≤ 1")
    return lo, hi


def stream_specs(pattern: str, band: str, qd: int, bs: str, extra: Sequence[str], flush_every: int) -> list[StreamSpec]:
    """The main stream plus each ``PATTERN:LO:HI[:QD[:BS]]`` (QD and BS default to the main's).

    >>> specs = stream_specs("read", "0:1%", 1, "1M", ["randread:99%:1:4"], 0)
    >>> [(s.pattern, s.band, s.qd, s.block_bytes) for s in specs]
    [('read', (0.0, 0.01), 1, 1048576), ('randread', (0.99, 1.0), 4, 1048576)]
    """
    from advisor.disk.simulate import PATTERNS, StreamSpec

    if qd < 1:
        raise BadInput("--qd must be at least 1")
    rows = [(pattern, parse_band(band), qd, parse_size(bs))]
    for text in extra:
        parts = text.split(":")
        if not 3 <= len(parts) <= 5:
            raise BadInput(f"cannot read --stream {text!r}", hint="use PATTERN:LO:HI[:QD[:BS]]")
        if len(parts) > 3 and not (parts[3].isdigit() and int(parts[3]) >= 1):
            raise BadInput(f"--stream {text!r}: queue depth must be a whole number ≥ 1")
        depth = int(parts[3]) if len(parts) > 3 else qd
        block = parse_size(parts[4]) if len(parts) > 4 else parse_size(bs)
        rows.append((parts[0], parse_band(f"{parts[1]}:{parts[2]}"), depth, block))
    specs = []
    for name, lohi, depth, block in rows:
        if name not in PATTERNS:
            raise BadInput(f"unknown pattern {name!r}", hint=f"use one of {', '.join(PATTERNS)}")
        specs.append(StreamSpec(name, lohi, block, depth, flush_every=flush_every or None))  # type: ignore[arg-type]
    return specs
