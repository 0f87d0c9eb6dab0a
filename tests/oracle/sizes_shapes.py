"""Sizes files in the shapes SQL*Plus and psql print the ``sizes`` query's rows.

- SQL*Plus 12.2+ ``SET MARKUP CSV ON`` (QUOTE ON, the default): every heading and text value
  in double quotes, NULL as an empty field, then a blank line and ``N rows selected.``;
- SQL*Plus 11.2 plain grid (``SET PAGESIZE 14``, the default, ``TRIMSPOOL ON``): each page
  starts with a blank line (NEWPAGE 1), the upper-case headings, a line of dashes as wide as
  each column (a VARCHAR2's declared length), one space between columns; headings repeat
  on every page; after the last row a blank line and ``N rows selected.``;
- psql ``--csv``: lower-case headings, values quoted only when needed, no footer;
- psql aligned (the default): `` col | col``, a ``---+---`` rule, ``(N rows)``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

Row = dict[str, str]

ORACLE_WIDTHS = {"db_name": 9, "dbid": 40, "taken_at": 19, "kind": 8, "container": 128, "tablespace": 30,
                 "file_name": 513, "bytes": 40}
"""Column widths SQL*Plus gives the sizes query's columns: the VARCHAR2 lengths of
V$DATABASE.NAME, TO_CHAR(number), the date format, the CAST, V$CONTAINERS.NAME,
V$TABLESPACE.NAME, V$DATAFILE.NAME."""


def sqlplus_csv(columns: Sequence[str], rows: Sequence[Row], feedback: bool = True) -> str:
    """What ``SET MARKUP CSV ON`` spools."""
    lines = [",".join(f'"{c.upper()}"' for c in columns)]
    for row in rows:
        lines.append(",".join(f'"{row[c]}"' if row.get(c) else "" for c in columns))
    if feedback:
        lines += ["", f"{len(rows)} rows selected.", ""]
    return "\n".join(lines) + "\n"


def sqlplus_grid(columns: Sequence[str], rows: Sequence[Row], pagesize: int = 14, feedback: bool = True) -> str:
    """What SQL*Plus 11.2 spools without markup: pages of headings, dashes and fixed-width rows."""
    widths = [ORACLE_WIDTHS[c] for c in columns]

    def line(cells: Sequence[str]) -> str:
        return " ".join(cell.ljust(w)[:w] for cell, w in zip(cells, widths, strict=True)).rstrip()

    heading = [line([c.upper() for c in columns]), " ".join("-" * w for w in widths)]
    per_page = pagesize - 1 - len(heading)  # NEWPAGE 1: one blank line opens each page
    out: list[str] = []
    for start in range(0, len(rows), per_page):
        out += ["", *heading]
        out += [line([row.get(c, "") for c in columns]) for row in rows[start:start + per_page]]
    if feedback:
        out += ["", f"{len(rows)} rows selected.", ""]
    return "\n".join(out) + "\n"


def psql_csv(columns: Sequence[str], rows: Sequence[Row]) -> str:
    """What ``psql --csv`` prints."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row.get(c, "") for c in columns])
    return buffer.getvalue()


def psql_aligned(columns: Sequence[str], rows: Sequence[Row]) -> str:
    """What psql prints by default (format aligned, footer on)."""
    widths = [max([len(c)] + [len(r.get(c, "")) for r in rows]) for c in columns]
    head = "|".join(f" {c.center(w)} " for c, w in zip(columns, widths, strict=True)).rstrip()
    rule = "+".join("-" * (w + 2) for w in widths)
    body = ["|".join(f" {r.get(c, '').ljust(w)} " for c, w in zip(columns, widths, strict=True)).rstrip()
            for r in rows]
    return "\n".join([head, rule, *body, f"({len(rows)} rows)", ""]) + "\n"
