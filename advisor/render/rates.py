"""Workload rates as tables: per tablespace and per file, sorted by IOPS.

Formatting only: the per-tablespace sums come in as rows from
:func:`advisor.rates.areas.tablespace_rates`. A rate the server does not provide (writes per
PostgreSQL relation, latency without timing) shows as ``-``, never as 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from advisor.model import FileRate, Workload
from advisor.render.cells import MIN_PATH_CELLS, MiddlePath, add_columns, one_line, plain_table, shorten_middle
from advisor.render.safe import shown as shown_text
from advisor.units import MIB

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.measure import Measurement
    from rich.table import Table

    from advisor.rates.areas import TablespaceRates

SORT_KEYS = ("iops", "mbs", "size", "name")


def sort_files(rates: tuple[FileRate, ...], key: str) -> list[FileRate]:
    """Files ordered by total IOPS (default), MB/s, size or name."""
    if key == "name":
        return sorted(rates, key=lambda r: (r.container, r.name or r.file_id))
    if key == "size":
        return sorted(rates, key=lambda r: -(r.size_bytes if r.size_bytes is not None else -1))
    if key == "mbs":
        return sorted(rates, key=lambda r: -(r.read_mb_s + (r.write_mb_s or 0)))
    return sorted(rates, key=lambda r: (-(r.read_iops + (r.write_iops or 0)), r.file_id))


def fmt(value: float | None, digits: int = 1) -> str:
    """A number for a table cell; None (not provided by the server) is '-'."""
    return "-" if value is None else f"{value:,.{digits}f}"


def mib(size: int | None) -> str:
    """Bytes as MiB for a table cell; an unknown size is '?' (see ``--sizes``)."""
    return "?" if size is None else f"{size / MIB:,.1f}"


def tablespace_table(rows: Sequence[TablespaceRates], interval_s: float) -> Table:
    """Rich table of the per-tablespace rows :func:`advisor.rates.areas.tablespace_rates` summed,
    in their order (figures on one line; a long name is cut with "…")."""
    table = plain_table(f"Per tablespace over {interval_s:,.1f} s")
    headers = ["tablespace", "kind", "files", "MiB", "r/s", "w/s", "rMiB/s", "wMiB/s"]
    add_columns(table, headers, right=tuple(headers[2:]), shrink=("tablespace",))
    for row in rows:
        sums = row.totals
        mark = "*" if sums.lower_bound else ""
        table.add_row(one_line(row.tablespace), row.kind, str(sums.files), mib(sums.known_size_bytes),
                      fmt(sums.read_iops) + mark,
                      fmt(sums.write_iops), fmt(sums.read_mb_s, 2), fmt(sums.write_mb_s, 2))
    return table


def has_patterns(rows: Sequence[TablespaceRates]) -> bool:
    """Whether any row's reads say their pattern (a random share, or IOs the server combined)."""
    return any(r.totals.random_share is not None or r.totals.combined_files for r in rows)


def pattern_table(rows: Sequence[TablespaceRates], counts_blocks: bool) -> Table:
    """Rich table of each reading row's mean read size and pattern: KiB per read IO, the share of
    random reads, and whether the server combined blocks into larger IOs (PostgreSQL 18 scans).
    *counts_blocks*: the server counts reads in blocks (PostgreSQL), not requests (Oracle)."""
    table = plain_table("Read size and pattern")
    headers = ["tablespace", "kind", "KiB/IO", "random", "reads counted as"]
    add_columns(table, headers, right=("KiB/IO", "random"), shrink=("tablespace", "reads counted as"))
    for row in rows:
        sums = row.totals
        if sums.read_iops <= 0:
            continue
        share = sums.random_share
        counted = (f"IOs combined by the server ({sums.read_blocks_per_s:,.0f} blocks/s)" if sums.combined_files
                   else "blocks" if counts_blocks else "requests")
        random = "-" if share is None else f"{share:.0%}"
        table.add_row(one_line(row.tablespace), row.kind, fmt(sums.mean_read_kb), random, counted)
    return table


def file_path(rate: FileRate, data_directory: str | None) -> str:
    """The file as the DBA finds it on disk: relative to the data directory when under it
    (``base/16384/16402``, not the relation's OID), else the whole path; the id when there is none.

    >>> from advisor.model import FileRate
    >>> r = FileRate("app/16394", "/var/lib/pg/18/main/base/16384/16402", "data", "pg_default", "app", 0, 0.0,
    ...              None, 0.0, None, *[None] * 5)
    >>> file_path(r, "/var/lib/pg/18/main"), file_path(r, "/elsewhere"), file_path(r, None)[-16:]
    ('base/16384/16402', '/var/lib/pg/18/main/base/16384/16402', 'base/16384/16402')
    """
    if not rate.path:
        return rate.file_id
    root = (data_directory or "").rstrip("/")
    if root and rate.path.startswith(root + "/"):
        return rate.path[len(root) + 1:]
    return rate.path


def no_write_counter(workload: Workload) -> str | None:
    """Why relations show w/s ``-`` (PostgreSQL), or None when every file has its writes."""
    if workload.server.dbms != "postgres" or all(r.write_iops is not None for r in workload.rates):
        return None
    return ("w/s, wMiB/s '-': PostgreSQL keeps no per-relation write counter (backends, the background writer "
            "and checkpoints write relation pages uncounted per file); reads are shared_buffers misses")


def file_table(workload: Workload, sort: str, top: int, width: int = 200) -> Table:
    """Rich table of the busiest files (all when *top* is 0); figures are never cut.

    When the twelve columns do not fit *width*, the file's path, name, kind and tablespace share
    the first column on two lines (names wrap, never cut), so the path keeps what width is left."""
    ordered = sort_files(workload.rates, sort)
    shown = ordered if top <= 0 else ordered[:top]
    title = f"Per file, by {sort}" + (f" (top {len(shown)} of {len(ordered)})" if len(shown) < len(ordered) else "")
    table = plain_table(title)
    data_directory = workload.server.settings.get("data_directory")
    headers = ["file", "name", "kind", "tablespace", "MiB", "r/s", "w/s", "rMiB/s", "wMiB/s", "rKB", "r ms", "w ms"]
    rows = [[MiddlePath(file_path(r, data_directory)), one_line(r.name or ""), r.kind, one_line(r.tablespace),
             mib(r.size_bytes), fmt(r.read_iops) + ("*" if r.lower_bound else ""), fmt(r.write_iops),
             fmt(r.read_mb_s, 2), fmt(r.write_mb_s, 2), fmt(r.mean_read_kb), fmt(r.read_latency_ms, 2),
             fmt(r.write_latency_ms, 2)] for r in shown]
    # a column no shown file has a figure for gives its width to the file names, and says so
    empty = [i for i in range(6, len(headers)) if rows and all(row[i] == "-" for row in rows)]
    keep = [i for i in range(len(headers)) if i not in empty]
    texts = [[file_path(r, data_directory), r.name or "", r.kind, r.tablespace, *row[4:]] for r, row in zip(
        shown, rows, strict=True)]
    natural = sum(max(len(headers[i]), *(len(str(t[i])) for t in texts)) for i in keep) if texts else 0
    if natural + 2 * (len(keep) - 1) + 2 > width:  # two cells of edge
        keep = [i for i in keep if i >= 4]
        add_columns(table, ["file / name, kind, tablespace", *[headers[i] for i in keep]], right=tuple(headers[4:]),
                    shrink=("file / name, kind, tablespace",))
        for r, row in zip(shown, rows, strict=True):
            about = ", ".join(x for x in (r.name, r.kind, r.tablespace) if x)
            table.add_row(_TwoLines(file_path(r, data_directory), about), *[row[i] for i in keep])
    else:
        add_columns(table, [headers[i] for i in keep], right=tuple(headers[4:]),
                    shrink=("file", "name", "tablespace"))
        for row in rows:
            table.add_row(*[row[i] for i in keep])
    if empty:
        table.caption = f"no figure for any file shown: {', '.join(headers[i] for i in empty)}"
        table.caption_justify = "left"
    return table



class _TwoLines(MiddlePath):
    """The file's path over its name, kind and tablespace (a cell of the narrow file table)."""

    def __init__(self, path: str, about: str) -> None:
        super().__init__(path)
        self.about = shown_text(about)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        from rich.measure import Measurement

        return Measurement(min(len(self.text), MIN_PATH_CELLS), max(len(self.text), len(self.about)))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.padding import Padding
        from rich.text import Text

        # the path on one line (shortened in the middle only when it cannot fit); the names under
        # it wrap rather than lose a letter: a DBA types them
        yield Text(shorten_middle(self.text, options.max_width), no_wrap=True, overflow="crop")
        yield Padding(Text(self.about, overflow="fold", end=""), (0, 0, 0, 2))
