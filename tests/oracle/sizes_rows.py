"""The ``sizes`` query's rows for the two AWR/Statspack fixtures of tests/oracle/fixtures.

Printed into files by :mod:`tests.oracle.sizes_shapes`; shared by the sizes tests (file, merge,
formats), so the figures the reports and the sizes files agree on are written once.
"""

from __future__ import annotations

from tests.oracle.sizes_shapes import Row

GIB = 1 << 30
COLUMNS_11 = ("db_name", "dbid", "taken_at", "kind", "tablespace", "file_name", "bytes")
COLUMNS_12 = ("db_name", "dbid", "taken_at", "kind", "container", "tablespace", "file_name", "bytes")


def row(kind: str, tablespace: str, name: str, size: int, container: str = "", db: str = "ORCL",
        dbid: str = "1234567890") -> Row:
    """One row of the ``sizes`` query (all columns text, as SQL*Plus prints them)."""
    return {"db_name": db, "dbid": dbid, "taken_at": "2026-11-20T10:05:00", "kind": kind, "container": container,
            "tablespace": tablespace, "file_name": name, "bytes": str(size)}


def rows_11() -> list[Row]:
    """The 11.2.0.4 fixture's database: USERS big and busy, the rest small; 14 rows over two pages."""
    return [
        row("datafile", "SYSAUX", "/u01/oradata/ORCL/sysaux01.dbf", 2 * GIB),
        row("datafile", "SYSTEM", "/u01/oradata/ORCL/system01.dbf", 1 * GIB),
        row("datafile", "UNDOTBS1", "/u01/oradata/ORCL/undotbs01.dbf", 4 * GIB),
        row("datafile", "USERS", "/u02/oradata/ORCL/users01.dbf", 300 * GIB),
        row("datafile", "USERS", "/u02/oradata/ORCL/users02.dbf", 200 * GIB),
        row("datafile", "USERS", "/u02/oradata/ORCL/users03.dbf", 100 * GIB),  # no IO: not in the report
        row("tempfile", "TEMP", "/u03/oradata/ORCL/temp01.dbf", 32 * GIB),
        row("redo", "", "/u04/oradata/ORCL/redo01a.log", 512 << 20),
        row("redo", "", "/u05/oradata/ORCL/redo01b.log", 512 << 20),
        row("redo", "", "/u04/oradata/ORCL/redo02a.log", 512 << 20),
        row("redo", "", "/u05/oradata/ORCL/redo02b.log", 512 << 20),
        row("control", "", "/u01/oradata/ORCL/control01.ctl", 18 << 20),
        row("control", "", "/u04/oradata/ORCL/control02.ctl", 18 << 20),
        row("fra", "ARCHIVED LOG", "/u06/fra", 150 * GIB),
    ]


def rows_12() -> list[Row]:
    """The 12.2 CDB fixture: its files are in PDB SALES; the root has tablespaces of the same names."""
    pdb = "SALES"
    return [
        row("datafile", "SYSAUX", "/u01/oradata/ORCL/sysaux01.dbf", 3 * GIB, pdb),
        row("datafile", "SYSTEM", "/u01/oradata/ORCL/system01.dbf", 1 * GIB, pdb),
        row("datafile", "SYSTEM", "/u01/oradata/ORCL/root_system01.dbf", 1 * GIB, "CDB$ROOT"),
        row("datafile", "UNDOTBS1", "/u01/oradata/ORCL/undotbs01.dbf", 8 * GIB, pdb),
        row("datafile", "USERS", "+DATA/ORCL/A1B2C3D4E5F6/DATAFILE/users01.dbf", 400 * GIB, pdb),
        row("datafile", "USERS", "+DATA/ORCL/A1B2C3D4E5F6/DATAFILE/users02.dbf", 200 * GIB, pdb),
        row("tempfile", "TEMP", "/u03/oradata/ORCL/temp01.dbf", 20 * GIB, pdb),
        row("redo", "", "+REDO/ORCL/ONLINELOG/group_1.261.1", 1 * GIB),
        row("redo", "", "+REDO/ORCL/ONLINELOG/group_2.262.1", 1 * GIB),
        row("control", "", "+DATA/ORCL/CONTROLFILE/current.260.1", 20 << 20),
        row("fra", "ARCHIVED LOG", "+FRA", 300 * GIB),
    ]
