"""Replay harness: a python-oracledb connection that serves recorded rows of documented views.

No Oracle server can run in CI, so the collector is driven through its real code path with
a connection object implementing the part of the python-oracledb API it uses (``cursor``,
``execute`` with binds, ``description``, ``rowfactory``, ``fetchall``, ``version``,
``module``, ``call_timeout``, ``close``). Recordings are rows of the *views* (keys are the
documented column names such as ``FILE#``, values the Python types oracledb returns), keyed
by the ``/* advisor:<query> */`` marker. The cursor projects them through the statement's
own select list, so a column renamed in SQL but not in Python (or the reverse) fails, and it
checks each recorded column and type against the catalog for the server's version. Every
statement executed is recorded, which is how the licensing test proves no DBA_HIST_* ran.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import oracledb
import oracledb.errors as driver_errors

from advisor.collect.context import CollectContext, build_snapshot
from advisor.collect.registry import run_isolated
from advisor.collectors.oracle import OracleCollector
from advisor.model import Snapshot
from tests.oracle.oracle_catalog import CATALOG
from tests.oracle.oracle_sqlshape import shape

Recorded = list[dict[str, Any]] | Callable[[Mapping[str, Any]], list[dict[str, Any]]]
_MARKER = re.compile(r"/\* advisor:([a-z0-9_]+) \*/")
_TYPES: dict[str, tuple[type, ...]] = {"N": (int, float, Decimal), "D": (dt.datetime,), "S": (str,)}


def ora_error(code: int, text: str) -> oracledb.DatabaseError:
    """A real python-oracledb DatabaseError as the driver raises it for ORA-<code>."""
    return oracledb.DatabaseError(driver_errors._Error(f"ORA-{code:05d}: {text}", code=code))


def dpy_error(number: int, **args: Any) -> oracledb.Error:
    """A real python-oracledb DPY-<number> error (thin-mode limits such as DPY-3001)."""
    error = driver_errors._create_err(number, **args)
    return error.exc_type(error)  # type: ignore[no-any-return]


@dataclass
class Statement:
    marker: str
    sql: str
    binds: dict[str, Any]


@dataclass
class ReplayConnection:
    """Stands in for ``oracledb.Connection``; ``recordings`` maps marker -> rows."""

    version: str
    recordings: dict[str, Recorded]
    errors: dict[str, Exception] = field(default_factory=dict)
    statements: list[Statement] = field(default_factory=list)
    module: str | None = None
    action: str | None = None
    call_timeout: int = 0
    closed: bool = False

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    def cursor(self) -> ReplayCursor:
        if self.closed:
            raise oracledb.InterfaceError(driver_errors._create_err(1001))
        return ReplayCursor(self)

    def close(self) -> None:
        self.closed = True


class ReplayCursor:
    def __init__(self, conn: ReplayConnection) -> None:
        self.conn = conn
        self.description: list[tuple[Any, ...]] | None = None
        self.rowfactory: Callable[..., Any] | None = None
        self._rows: list[tuple[Any, ...]] = []

    def execute(self, sql: str, parameters: Mapping[str, Any] | None = None) -> None:
        match = _MARKER.search(sql)
        assert match, f"statement without marker: {sql[:80]}"
        marker = match.group(1)
        binds = dict(parameters or {})
        for name in re.findall(r":([a-z_]+)", _MARKER.sub("", sql)):
            assert name in binds, f"{marker}: bind :{name} not supplied"
        self.conn.statements.append(Statement(marker, sql, binds))
        if marker in self.conn.errors:
            raise self.conn.errors[marker]
        if marker not in self.conn.recordings:
            raise ora_error(942, "table or view does not exist")
        recorded = self.conn.recordings[marker]
        rows = recorded(binds) if callable(recorded) else recorded
        parsed = shape(sql)
        out = []
        for row in rows:
            values = []
            for column in parsed.columns:
                if column.source is None:
                    values.append(row[column.alias.upper()])
                    continue
                view = parsed.view_of(column.qualifier)
                self._check(view, column.source, row[column.source])
                values.append(row[column.source])
            out.append(tuple(values))
        self.description = [(c.alias.upper(), None, None, None, None, None, True) for c in parsed.columns]
        self._rows = out

    def _check(self, view: str, column: str, value: Any) -> None:
        documented = CATALOG[view]
        assert column in documented, f"{view}.{column} is not a documented column"
        kind, since = documented[column]
        assert since <= self.conn.major, f"{view}.{column} does not exist before {since} (server {self.conn.version})"
        assert value is None or isinstance(value, _TYPES[kind]), f"{view}.{column}: {type(value).__name__} for {kind}"

    def fetchall(self) -> list[Any]:
        if self.rowfactory is None:
            return list(self._rows)
        return [self.rowfactory(*row) for row in self._rows]

    def close(self) -> None:
        self._rows = []


Replay = Callable[[ReplayConnection], list[dict[str, Any]]]
"""The ``replay`` fixture (tests/oracle/conftest.py): queue a connection, get the call log."""


def take(replay: Replay, conn: ReplayConnection, options: dict[str, Any] | None = None) -> Snapshot:
    """One snapshot exactly as `advisor collect` takes it: connect, collect, close."""
    replay(conn)
    collector = OracleCollector()
    opened = collector.connect("dbhost/orclpdb", dict(options or {}, user="advisor", password="s3cret"))
    assert opened is conn
    context = CollectContext()
    runs = [run_isolated(collector.name, lambda: collector.collect(opened, context))]
    collector.close(opened)
    assert [r.status for r in runs] == ["ok"], runs
    return build_snapshot(context, runs)
