"""The instance's "Wait Event Histogram": the share of each read event's waits per time bucket.

AWR (HTML and text, 10g to 19c) and Statspack print, per event, the total waits and the
percentage of them in buckets headed ``<1ms <2ms <4ms <8ms <16ms <32ms <=1s >1s`` (an empty
cell: "null is truly 0"; Total Waits with a K/M/G suffix in multiples of 1000). Only the
single-block and multi-block read events are kept: a read that took under a millisecond was
served by a cache for any rotating medium, so their ``<1ms`` share is the instance's cache
hit share for those reads (docs/awr-import.md, "Cached reads").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from advisor.collectors.awr import numbers
from advisor.collectors.awr.sections import ReportData
from advisor.errors import BadInput
from advisor.model import EventHistogram

if TYPE_CHECKING:
    from advisor.collectors.awr.html import Block
    from advisor.collectors.awr.text import Section

TITLE = "Wait Event Histogram"
READ_EVENTS = ("db file sequential read", "db file scattered read", "db file parallel read")
_BUCKET = re.compile(r"^(<=|<|>=|>)(\d+(?:\.\d+)?)(us|ms|s)$")
_SCALE_MS = {"us": 0.001, "ms": 1.0, "s": 1024.0}  # the report's note: "<=1s is truly <1024ms"


def bucket_bound_ms(header: str) -> tuple[bool, float | None] | None:
    """(is a bucket, upper bound in ms) of a column header; None when the header is no bucket.

    ``>1s`` is the open last bucket (bound None).
    """
    match = _BUCKET.match("".join(header.split()))
    if match is None:
        return None
    sign, figure, unit = match.groups()
    if sign.startswith(">"):
        return True, None
    return True, float(figure) * _SCALE_MS[unit]


def _figure(cell: str, where: str) -> float | None:
    """A cell's figure; an overflow mark is unknown, anything else unreadable is BadInput naming the place."""
    if numbers.is_overflow(cell):
        numbers.note(f"{where}: a figure printed as {cell!r} overflowed its column; left unknown")
        return None
    try:
        return numbers.number(cell, where=where)
    except ValueError:
        raise numbers.refusal(cell, where, f"{where}: {cell.strip()!r} is not a number (garbled report?)") from None


def histogram_row(event: str, headers: list[str], cells: list[str], where: str) -> EventHistogram | None:
    """An EventHistogram from one row's cells under *headers*; None for events that are not reads."""
    if event.strip().lower() not in READ_EVENTS:
        return None
    bounds: list[float | None] = []
    percent: list[float] = []
    total: float | None = None
    for header, cell in zip(headers, cells, strict=False):
        squashed = "".join(header.split()).lower()
        if squashed in ("totalwaits", "waits"):
            total = _figure(cell, f"{where}, Total Waits")
            continue
        bucket = bucket_bound_ms(header)
        if bucket is None:
            continue
        value = _figure(cell, f"{where}, {header.strip()}")
        bounds.append(bucket[1])
        percent.append(value or 0.0)
    if not bounds:
        return None
    if sum(percent) > 100.5:
        raise BadInput(f"{where}: the buckets of {event.strip()!r} add up to {sum(percent):.1f} % (garbled report?)")
    return EventHistogram(event=event.strip(), total_waits=total, bucket_ms=tuple(bounds), percent=tuple(percent))


def from_html(found: list[Block], data: ReportData) -> None:
    """The section of an AWR HTML report (header cells name the buckets)."""
    from advisor.collectors.awr.html import section

    table, _ = section(found, TITLE)
    if table is None:
        return
    # 11.2 heads the table with two rows: "% of Waits" over the buckets, then the bucket names
    rows = [table.header, *table.rows]
    named = next((i for i, row in enumerate(rows) if any(bucket_bound_ms(c) for c in row)), None)
    if named is None:
        return
    headers = rows[named]
    for row in rows[named + 1:]:
        if not row:
            continue
        made = histogram_row(row[0], headers[1:], row[1:], f"{TITLE} (HTML line {table.line})")
        if made is not None:
            data.event_histograms.append(made)


def from_text(found: dict[str, Section], data: ReportData) -> None:
    """The section of an AWR text or Statspack report: columns from the dash line, names from the line above."""
    from advisor.collectors.awr.text import _DASHES, _cut, spans

    section = found.get(TITLE)
    if section is None:
        return
    lines = section.lines
    rule = next((i for i, line in enumerate(lines) if _DASHES.match(line) and i > 0 and "<1" in lines[i - 1]
                 .replace(" ", "")), None)
    if rule is None:
        return
    ranges = spans(lines[rule])
    headers = _cut(lines[rule - 1], ranges)
    if len(headers) < 2:  # a rule cut short (a truncated report): no bucket columns to read
        data.warnings.append(f"{TITLE} line {section.first_line + rule}: {len(headers)} column under the heading "
                             "(truncated report?); the histogram is not read")
        return
    headers[1] = "Total Waits" if headers[1].strip() == "Waits" else headers[1]
    for offset, line in enumerate(lines[rule + 1:], start=rule + 2):
        if not line.strip() or _DASHES.match(line):
            break
        cells = _cut(line, ranges)
        made = histogram_row(cells[0], headers[1:], cells[1:], f"{TITLE} line {section.line_of(offset - 1)}")
        if made is not None:
            data.event_histograms.append(made)
