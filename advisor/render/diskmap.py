"""Draw disk maps with rich: per disk a table of bars from the outer edge (left) to the inner.

The rows come from :func:`advisor.engine.audit_map.build_audit_maps`; nothing is computed
here but cell widths and colours.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.model import AuditMaps
from advisor.render.safe import rich_text, shown

if TYPE_CHECKING:
    from rich.console import RenderableType


def heat_style(heat: float) -> str:
    """Colour of a bar: cold blue → green → yellow → red (hottest).

    >>> heat_style(0.0), heat_style(0.95)
    ('blue', 'red')
    """
    for limit, style in ((0.05, "blue"), (0.3, "green"), (0.7, "yellow")):
        if heat < limit:
            return style
    return "red"


def _bar(start: float | None, end: float | None, width: int) -> str:
    """A bar of *width* cells with the [start, end) fraction filled (at least one cell).

    >>> _bar(0.0, 0.25, 8), _bar(0.5, 0.5, 4), _bar(None, None, 3)
    ('██      ', '  █ ', '   ')
    """
    if start is None or end is None:
        return " " * width
    lo = min(width - 1, max(0, int(start * width)))
    hi = max(lo + 1, min(width, round(end * width)))
    return " " * lo + "█" * (hi - lo) + " " * (width - hi)


def compact(value: float) -> str:
    """Short number for narrow columns.

    >>> compact(12.345), compact(4321.0), compact(12_500_000.0)
    ('12.3', '4.3k', '12.5M')
    """
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= limit:
            return f"{value / limit:.1f}{suffix}"
    return f"{value:.1f}"


LABEL_WIDTH = 18
FIXED_WIDTH = LABEL_WIDTH + len("0.000-1.000") + len("999.9k") + len("share") + 4 * 2 + 1
"""Cells of every column but the bar, the two-cell gaps between the five columns, one spare."""


def render_disk_maps(result: AuditMaps, console_width: int = 100) -> list[RenderableType]:
    """Rich renderables: per disk a table of bars (outer edge left) and its notes; then unplaced areas.

    The bar takes what the other columns leave of *console_width*, so a row stays on one line.
    """
    from rich.text import Text

    from advisor.render.cells import add_columns, one_line, plain_table
    from advisor.units import human_bytes

    longest = max((len(r.label) + 1 for m in result.maps for r in (*m.partitions, *m.areas)), default=0)
    # labels are names a DBA types (tablespaces): whole first, as long as the bar keeps 16 cells
    label_width = max(LABEL_WIDTH, min(longest, console_width - FIXED_WIDTH + LABEL_WIDTH - 16))
    width = max(16, console_width - FIXED_WIDTH - (label_width - LABEL_WIDTH))
    ruler = "outer 0" + " " * (width - 14) + "inner 1"
    out: list[RenderableType] = []
    for disk_map in result.maps:
        dev = disk_map.disk
        table = plain_table(f"{dev.name}  {human_bytes(dev.size_bytes)}  {dev.model or dev.transport or ''}".rstrip())
        io = "IO/s" if result.interval_s else "IO"
        add_columns(table, ["partition / area", ruler, "zone", io, "share"], right=(io, "share"),
                    shrink=("partition / area",))
        table.columns[0].max_width = label_width
        notes = ["share: an area's part of the database's IO, a partition's part of its disk's"]
        if not dev.placement_known:
            notes.append(f"positions are not physical: {dev.reason}")
        for row in (*disk_map.partitions, *disk_map.areas):
            label = row.label if row.kind == "partition" else f" {row.label}"
            zone = f"{row.start:.3f}-{row.end:.3f}" if row.start is not None and row.end is not None else "-"
            share = f"{100 * row.share:.0f}%" if row.share is not None else "-"
            table.add_row(one_line(label), Text(_bar(row.start, row.end, width), style=heat_style(row.heat)), zone,
                          compact(row.io), share)
            # the disk's own reason is said once above, not again for every area on it
            detail = row.detail.replace(f"; {dev.reason}", "") if dev.reason and not dev.placement_known else row.detail
            notes.append(f"{row.label}: {detail}")
        out.append(table)
        out.append(Text(shown("\n".join(notes), keep_newlines=True), style="dim"))
    if result.unplaced:
        table = plain_table("areas with no known disk position")
        add_columns(table, ["area", result.heat_unit], right=(result.heat_unit,), shrink=("area",))
        table.add_column("why", overflow="fold")
        for row in result.unplaced:
            table.add_row(one_line(row.label), compact(row.io), rich_text(row.detail))
        out.append(table)
    return out
