"""AWR and Statspack reports of other instances and hours, rendered by the fixture generators.

The generators of tests/oracle/fixtures read the known figures of
:mod:`tests.oracle.report_truth` when they render; :func:`report_of` renders one with another
database name, DBID, instance, host, snapshot ids and hour (the file names stay the
fixtures'), and every file's ``Av Rd(ms)`` scaled by ``latency`` (a slower instance reads as
often and waits longer). The figures otherwise stay the fixtures' own, so
the importer's checks apply unchanged.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

from tests.oracle import report_truth as T
from tests.oracle.fixtures.render_html import html_report
from tests.oracle.fixtures.render_text import statspack_report

_PATCHED = ("DB_NAME", "DBID", "INSTANCE", "HOST", "BEGIN_SNAP", "END_SNAP", "BEGIN_TIME", "END_TIME", "FILES")


def report_of(path: Path, *, db_name: str, dbid: str, instance: str, host: str, begin: dt.datetime,
              snap: int, latency: float = 1.0, statspack: bool = False) -> Path:
    """Write an 11.2.0.4 AWR HTML (or Statspack text) report of one hour from *begin* to *path*."""
    saved = {name: getattr(T, name) for name in _PATCHED}
    end = begin + dt.timedelta(seconds=T.INTERVAL_S)
    try:
        T.DB_NAME, T.DBID, T.INSTANCE, T.HOST = db_name, dbid, instance, host
        T.BEGIN_SNAP, T.END_SNAP = snap, snap + 1
        T.BEGIN_TIME, T.END_TIME = begin.strftime("%d-%b-%y %H:%M:%S"), end.strftime("%d-%b-%y %H:%M:%S")
        T.FILES = tuple(replace(f, av_rd_ms=round(f.av_rd_ms * latency, 2)) for f in saved["FILES"])
        # passed explicitly: the renderers' defaults were bound when they were defined
        text = statspack_report(T.FILES) if statspack else html_report("11.2.0.4.0", files=T.FILES)
    finally:
        for name, value in saved.items():
            setattr(T, name, value)
    path.write_text(text, encoding="utf-8")
    return path


SIZES_COLUMNS = ("db_name", "dbid", "taken_at", "kind", "tablespace", "file_name", "bytes")
_GIB = 1 << 30
_SIZES = (("datafile", "SYSAUX", "/u01/oradata/ORCL/sysaux01.dbf", 2 * _GIB),
          ("datafile", "SYSTEM", "/u01/oradata/ORCL/system01.dbf", 1 * _GIB),
          ("datafile", "UNDOTBS1", "/u01/oradata/ORCL/undotbs01.dbf", 4 * _GIB),
          ("datafile", "USERS", "/u02/oradata/ORCL/users01.dbf", 30 * _GIB),
          ("datafile", "USERS", "/u02/oradata/ORCL/users02.dbf", 20 * _GIB),
          ("tempfile", "TEMP", "/u03/oradata/ORCL/temp01.dbf", 8 * _GIB),
          ("redo", "", "/u04/oradata/ORCL/redo01a.log", 512 << 20),
          ("redo", "", "/u05/oradata/ORCL/redo01b.log", 512 << 20),
          ("control", "", "/u01/oradata/ORCL/control01.ctl", 18 << 20),
          ("fra", "ARCHIVED LOG", "/u06/fra", 50 * _GIB))


def sizes_of(path: Path, *, db_name: str, dbid: str) -> Path:
    """The ``sizes`` query's rows for a report of :func:`report_of`, as SQL*Plus 12.2+ CSV spools them."""
    from tests.oracle.sizes_shapes import sqlplus_csv

    rows = [{"db_name": db_name, "dbid": dbid, "taken_at": "2026-11-20T10:05:00", "kind": kind, "tablespace": space,
             "file_name": name, "bytes": str(size)} for kind, space, name, size in _SIZES]
    path.write_text(sqlplus_csv(SIZES_COLUMNS, rows), encoding="utf-8")
    return path
