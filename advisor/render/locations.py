"""Render file locations (``advisor where``) and iostat-style rates as JSON rows or rich tables."""

from __future__ import annotations

from copy import copy
from dataclasses import replace
from functools import partial
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from advisor.model import Device, DiskStatRate, Location
from advisor.render.cells import MiddlePath, add_columns, one_line, plain_table
from advisor.render.safe import rich_text
from advisor.units import human_bytes

if TYPE_CHECKING:
    from rich.table import Column, Table


def location_row(location: Location, with_extents: bool = False) -> dict[str, Any]:
    """The stable JSON object of one path (documented in docs/where.md)."""
    row: dict[str, Any] = {
        "path": location.path,
        "disk": location.disk,
        "partition": location.partition,
        "zone_start": location.zone_start,
        "zone_end": location.zone_end,
        "zone_mean": location.zone_mean,
        "extents": location.extents,
        "size_bytes": location.size_bytes,
        "placement_known": location.placement_known,
        "reason": location.reason,
    }
    if with_extents:
        row["extent_list"] = [
            {"file_offset_bytes": e.file_offset_bytes, "disk_offset_bytes": e.disk_offset_bytes,
             "length_bytes": e.length_bytes}
            for e in location.extent_list
        ]
    return row


def _zone(location: Location, split: bool = False) -> str:
    if location.zone_start is None or location.zone_end is None:
        return "-"
    return f"{location.zone_start:.4f}-{chr(10) if split else ''}{location.zone_end:.4f}"


class Notes:
    """Footnotes shared by the tables, so long reasons do not squeeze the columns."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def mark(self, text: str | None) -> str:
        """'[n]' for *text* (numbered on first use), '' for None."""
        if not text:
            return ""
        if text not in self.texts:
            self.texts.append(text)
        return f"[{self.texts.index(text) + 1}]"

    def lines(self) -> list[str]:
        """The footnotes, one per line."""
        return [f"[{i}] {text}" for i, text in enumerate(self.texts, start=1)]


def locations_table(locations: list[Location], notes: Notes, with_extents: bool = False,
                    width: int | None = None) -> Table:
    """One row per path (plus one per extent with ``--extents``); reasons go to *notes*.

    At *width* columns a file name is never cut: when the path column would shorten one below
    its last component, the zone range goes on two lines (``0.5953-`` over ``0.5953``), which
    gives the path six more cells (a 21-character relation file beside ``loop5p1`` at 80);
    when that is not enough and every partition's name starts with its disk's (``nvme0n1p12``),
    the disk column, which then says nothing the partition does not, is left out.
    """
    redundant = all(loc.disk and loc.partition and loc.partition.startswith(loc.disk) for loc in locations)
    shapes = [(False, False), (True, False)] + ([(True, True)] if redundant else [])
    for split_zone, without_disk in shapes:
        table = _locations_table(locations, notes, with_extents, split_zone, without_disk)
        if width is None or not _cuts_a_name(table, width):
            break
    return table


def _cuts_a_name(table: Table, width: int) -> bool:
    """Whether *table*, drawn at *width*, shows some path without its whole file name.

    Column widths depend only on each column's widest cell, and the path column gets one width
    for every row, so drawing a probe of a few rows is exact: the row widest in each column,
    and the row with the longest file name (if that name is whole, every shorter one is).
    """
    from io import StringIO

    from rich.console import Console

    columns = list(table.columns)
    rows = range(len(table.rows))
    widest = {max(rows, key=partial(_cells_wide, column)) for column in columns} if rows else set()
    named = [i for i, cell in enumerate(columns[0].cells) if isinstance(cell, MiddlePath)]
    if named:
        widest.add(max(named, key=lambda i: len(PurePosixPath(_path_text(columns[0], i)).name)))
    probe = copy(table)
    probe.columns = [replace(c, _cells=[c._cells[i] for i in sorted(widest)]) for c in columns]
    probe.rows = [table.rows[i] for i in sorted(widest)]
    console = Console(file=StringIO(), width=width, color_system=None, highlight=False, emoji=False)
    console.print(probe)
    drawn = console.file.getvalue()  # type: ignore[attr-defined]
    return any(PurePosixPath(path).name not in drawn for i in widest if (path := _path_text(columns[0], i)))


def _cells_wide(column: Column, row: int) -> int:
    """Cells the widest line of one cell takes (what a column's width is made of)."""
    from rich.cells import cell_len
    from rich.text import Text

    cell = column._cells[row]
    text = cell.text if isinstance(cell, MiddlePath) else cell.plain if isinstance(cell, Text) else str(cell)
    return max(cell_len(line) for line in text.split("\n"))


def _path_text(column: Column, row: int) -> str:
    cell = column._cells[row]
    return cell.text if isinstance(cell, MiddlePath) else ""


def _locations_table(locations: list[Location], notes: Notes, with_extents: bool, split_zone: bool,
                     without_disk: bool) -> Table:
    table = plain_table("where the bytes are (0 = outer edge, 1 = inner edge)")
    headers = ["path", "disk", "part", "zone", "mean", "ext", "size", "known"]
    add_columns(table, [h for h in headers if not (without_disk and h == "disk")],
                right=("mean", "ext", "size"), shrink=("path",))
    for loc in locations:
        mean = f"{loc.zone_mean:.4f}" if loc.zone_mean is not None else "-"
        style = None if loc.placement_known else "yellow"
        if loc.disk is None and loc.reason in ("no such file or directory", "permission denied"):
            style = "red"
        known = "yes" if loc.placement_known else "no"
        disk = [] if without_disk else [rich_text(loc.disk or "-")]
        table.add_row(MiddlePath(loc.path), *disk, rich_text(loc.partition or "-"),
                      _zone(loc, split_zone), mean, str(loc.extents),
                      human_bytes(loc.size_bytes), f"{known} {notes.mark(loc.reason)}".strip(), style=style)
        if with_extents:
            for extent in loc.extent_list:
                table.add_row(f"  @{extent.file_offset_bytes}", *([] if without_disk else [""]), "",
                              f"disk byte {extent.disk_offset_bytes}", "", "", human_bytes(extent.length_bytes), "")
    return edgeless(table)


def devices_table(devices: list[Device], notes: Notes) -> Table:
    """The disks the paths live on, with what we can and cannot trust about them."""
    table = plain_table("disks")
    add_columns(table, ["disk", "size", "model", "bus", "rot.", "L/P block", "cache", "placement"],
                right=("size",), shrink=("model",))
    for dev in devices:
        placement = "known" if dev.placement_known else f"unknown {notes.mark(dev.reason)}"
        if dev.backing_file:
            placement += " " + notes.mark(f"{dev.name} is a loop device over {dev.backing_file}")
        table.add_row(rich_text(dev.name), human_bytes(dev.size_bytes), one_line(dev.model or "-"),
                      dev.transport or "-",
                      {True: "yes", False: "no", None: "?"}[dev.rotational],
                      f"{dev.logical_block_bytes}/{dev.physical_block_bytes}",
                      (dev.write_cache or "-").removeprefix("write "), placement)
    return edgeless(table)


def rates_table(rates: list[DiskStatRate], seconds: float) -> Table:
    """``iostat -x``-like table of a diskstats interval."""
    table = plain_table(f"IO over {seconds:g} s")
    headers = ["device", "r/s", "w/s", "rMiB/s", "wMiB/s", "r_await ms", "w_await ms", "util %"]
    add_columns(table, headers, right=tuple(headers[1:]))
    for r in rates:
        table.add_row(rich_text(("  " if r.is_partition else "") + r.name), f"{r.r_s:.1f}", f"{r.w_s:.1f}",
                      f"{r.read_mb_s:.2f}", f"{r.write_mb_s:.2f}",
                      f"{r.r_await_ms:.2f}" if r.r_await_ms is not None else "-",
                      f"{r.w_await_ms:.2f}" if r.w_await_ms is not None else "-", f"{100 * r.util:.1f}")
    return edgeless(table)


def edgeless(table: Table) -> Table:
    """*table* without the blank cell at each end of its lines (every table of ``advisor
    where``): two more cells for the path.

    At 80 columns the path column is what gives way; those two cells keep a 21-character
    file name (``1613_fsm_segment_file``) whole next to a disk ``sda`` and partition ``sda3``.
    """
    table.show_edge = False
    return table
