"""Oracle per-segment rates as a table, with how much of each total the listed segments cover.

A figure the source does not give (a segment outside one of a report's top-N lists, requests
in Statspack) shows as ``-``, never 0; ``~`` marks IOPS counted in blocks (an upper bound on
requests) and ``*`` a counter that restarted during the interval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.model import SegmentRate, Workload
from advisor.render.cells import add_columns, plain_table
from advisor.render.rates import fmt, mib
from advisor.render.safe import shown as shown_text

if TYPE_CHECKING:
    from rich.console import Console, RenderableType


def _busy(rate: SegmentRate) -> float:
    return (rate.read_iops or 0.0) + (rate.write_iops or 0.0)


def _marked(value: float | None, mark: str) -> str:
    return fmt(value) + (mark if value is not None else "")


SEGMENT_HEADERS = ("segment", "type", "tablespace", "MiB", "r/s", "w/s", "rMiB/s", "wMiB/s", "direct r", "scans/s")


def _cells(r: SegmentRate) -> list[str]:
    mark = ("~" if r.from_blocks else "") + ("*" if r.lower_bound else "")
    direct = "-" if r.direct_read_share is None else f"{r.direct_read_share:.0%}"
    size = "-" if r.size_bytes is None else mib(r.size_bytes)
    return [shown_text(r.segment_id), shown_text(r.segment_type), shown_text(r.tablespace), size,
            _marked(r.read_iops, mark), _marked(r.write_iops, mark), fmt(r.read_mb_s, 2), fmt(r.write_mb_s, 2),
            direct, fmt(r.scans_per_s, 2)]


def segment_table(workload: Workload, top: int, width: int = 200) -> RenderableType | None:
    """The busiest segments (all when *top* is 0); None when the workload has none.

    A table when its columns fit *width*; else, so that no segment name (what a DBA types in a
    MOVE) and no figure is cut, each segment on two lines: its name, type and tablespace, then
    its figures with their labels."""
    from rich.console import Group
    from rich.text import Text

    if not workload.segments:
        return None
    ordered = sorted(workload.segments, key=lambda r: (-_busy(r), r.segment_id))
    shown = ordered if top <= 0 else ordered[:top]
    title = "Per segment" + (f" (top {len(shown)} of {len(ordered)})" if len(shown) < len(ordered) else "")
    rows = [_cells(r) for r in shown]
    natural = sum(max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(SEGMENT_HEADERS))
    if natural + 2 * (len(SEGMENT_HEADERS) - 1) + 2 <= width:  # two cells of edge
        table = plain_table(title)
        add_columns(table, list(SEGMENT_HEADERS), right=SEGMENT_HEADERS[3:])
        for row in rows:
            table.add_row(*row)
        return table
    lines: list[RenderableType] = [Text(title)]
    for row in rows:
        lines.append(Text(f"{row[0]}  {row[1]}  {row[2]}", overflow="fold"))
        figures = "  ".join(f"{h} {v}" for h, v in zip(SEGMENT_HEADERS[3:], row[3:], strict=True))
        lines.append(Text("    " + figures, overflow="fold"))
    return Group(*lines)


def coverage_line(workload: Workload) -> str | None:
    """"listed segments cover 88% of physical reads (captured 90%) ..." or None without coverage figures."""
    parts = []
    for statistic, share in workload.segment_coverages.items():
        if statistic.endswith(":captured"):
            continue
        captured = workload.segment_coverages.get(f"{statistic}:captured")
        extra = f" ({captured:.0%})" if captured is not None else ""
        parts.append(f"{statistic.replace('_', ' ')} {share:.0%}{extra}")
    if not parts:
        return None
    captured_any = any(":" in key for key in workload.segment_coverages)
    brackets = " (in brackets: the report's captured share)" if captured_any else ""
    return (f"share of each total in the listed segments{brackets}: " + ", ".join(parts)
            + ". Segments not listed are unknown, not cold.")


def print_segments(console: Console, workload: Workload, top: int) -> None:
    """The segment table, its coverage and its legend on *console* (nothing when there are no segments)."""
    table = segment_table(workload, top, console.width)
    if table is None:
        return
    console.print(table)
    line = coverage_line(workload)
    if line:
        console.print(line)
    if any(r.from_blocks for r in workload.segments):
        console.print("~ IOPS counted in blocks (the source gives no request counts): an upper bound")
    if any(r.lower_bound for r in workload.segments):
        console.print("* the segment's counters restarted (truncate, move or restart): rates since then")
