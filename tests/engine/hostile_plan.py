"""A plan with hostile names, and the SQL readers the script tests check its scripts with.

Shared by test_scripts.py and test_scripts_real_pg.py (which reads the same scripts back on a
real PostgreSQL parser).
"""

from __future__ import annotations

import sqlparse

from advisor.disk.physics import ModelPhysics
from advisor.engine.advise import AdviceRequest, Models, advise
from advisor.engine.planner import PlanOptions
from advisor.model import Plan, Script
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, model, workload

EVIL = 'x"; drop table t; --'
EVIL_NL = "y\nDROP TABLE t; --"
QUOTED_DIR = "/srv/it's \"new\" $(touch /tmp/pwned)"
PGDATA = "/var/lib/pg/o'brien `id` data"


def hostile_plan(dbms: str = "postgres", version_num: int = 180001, asm: bool = False) -> Plan:
    """A plan whose tablespace names, paths and data directory carry quotes, newlines, ``$(...)`` and
    backticks: every script written from it must keep them as data, never as syntax."""

    def path(name: str) -> str:
        return f"+DATA/orcl/datafile/{name}.259.1" if asm else f"/db/it's {name}"

    specs = [
        AreaSpec(EVIL, size_gb=1, read_iops=200, path=path("evil"), files=2),
        AreaSpec(EVIL_NL, size_gb=1, read_iops=50, path=path("evil2")),
        AreaSpec("WAL", kind="wal" if dbms == "postgres" else "redo", size_gb=0.3, write_iops=50, random_share=None,
                 syncs=20, path="/db/wal's"),
        AreaSpec("TEMP'S", kind="temp", size_gb=0.5, read_iops=5, write_iops=5, random_share=None, path=path("tmp")),
        AreaSpec("arch", kind="archive" if dbms == "postgres" else "fra", size_gb=1, write_iops=1, write_kb=1024,
                 random_share=None, path="/arch/it's"),
    ]
    w = workload(specs, dbms=dbms, version_num=version_num, with_layout=False)
    w = w.__class__(**{**{f: getattr(w, f) for f in w.__dataclass_fields__},
                       "server": w.server.__class__(**{**{f: getattr(w.server, f) for f in
                                                          w.server.__dataclass_fields__},
                                                       "settings": {"data_directory": PGDATA}})})
    m = Models(default=ModelPhysics(model(capacity=20 * 10**9)))
    report = advise(AdviceRequest(w, m, PlanOptions(mount_root=QUOTED_DIR, dbms=dbms), generated_at=AT))
    assert report.plan is not None
    return report.plan


def script_named(plan: Plan, name: str) -> Script:
    """The script called *name* of *plan*."""
    return next(s for s in plan.scripts if s.name == name)


def sql_statements(text: str) -> list[sqlparse.sql.Statement]:
    """The SQL statements of *text*; psql meta-command lines (``\\connect``) are psql's, not SQL."""
    sql = "\n".join(line for line in text.splitlines() if not line.startswith("\\"))
    parsed = sqlparse.parse(sql)
    return [s for s in parsed if s.get_type() != "UNKNOWN" or s.token_first(skip_cm=True) is not None]


SQLPLUS_COMMANDS = ("SET DEFINE OFF", "WHENEVER SQLERROR EXIT FAILURE", "PAUSE ", "SHUTDOWN IMMEDIATE",
                    "STARTUP MOUNT")


def sqlplus_statements(text: str) -> list[sqlparse.sql.Statement]:
    """The SQL statements of a SQL*Plus script, after checking its line discipline.

    SQL*Plus reads lines first: a command must be alone on its line, each statement one line
    ending in ``;``, no comment line ends in ``;``, and ``SET DEFINE OFF`` comes before any ``&``.
    """
    comments = [line for line in text.splitlines() if line.startswith("-- ")]
    assert not [c for c in comments if c.rstrip().endswith(";")], "SQL*Plus ends a statement at a comment's ';'"
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("-- ")]
    assert lines[0] == "SET DEFINE OFF" and "&" not in text.split("SET DEFINE OFF", 1)[0]
    statements = []
    for line in lines:
        if line.startswith(SQLPLUS_COMMANDS):
            continue
        assert line.endswith(";") and line.count(";") >= 1, line
        parsed = sql_statements(line)
        assert len(parsed) == 1 or all(str(p).strip().endswith(";") for p in parsed), line
        statements.append(parsed[0])
    return statements


def literals_of(statement: sqlparse.sql.Statement) -> list[str]:
    """The string literals of *statement* as the parser reads them (quotes undone)."""
    return [t.value[1:-1].replace("''", "'") for t in statement.flatten() if t.ttype in sqlparse.tokens.String.Single]


def idents_of(statement: sqlparse.sql.Statement) -> list[str]:
    """The quoted identifiers of *statement* as the parser reads them (quotes undone)."""
    return [t.value[1:-1].replace('""', '"') for t in statement.flatten() if t.ttype in sqlparse.tokens.Name
            and t.value.startswith('"')] + [
        t.value[1:-1].replace('""', '"') for t in statement.flatten()
        if t.ttype in sqlparse.tokens.String.Symbol]
