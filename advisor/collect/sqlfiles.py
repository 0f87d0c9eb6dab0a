"""Find, pick and load the SQL advisor runs: ``sql/<dbms>/<query>.v<min_major>.sql``.

The version lives in the file name, not in Python: the loader picks the file with the
highest ``min_major`` at or below the server's major version (pgwatch's rule). The header
comment (purpose, what changed) is stripped before execution; the statement must carry the
marker ``/* advisor:<query> */`` so a DBA can spot our sessions in pg_stat_activity or AWR.
``ADVISOR_SQL_DIR`` overrides the packaged folder so queries can be audited or patched
without reinstalling.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from advisor.errors import BadInput, Unsupported

_NAME = re.compile(r"^(?P<query>[a-z0-9_]+)\.v(?P<major>\d+)\.sql$")


@dataclass(frozen=True, slots=True)
class SqlFile:
    """One SQL file: where it is, what it is for, and the statement to run."""

    dbms: str
    query: str
    min_major: int
    path: str
    header: str  # the leading comment block, for `advisor sql show`
    text: str  # the statement, header stripped


def sql_root() -> Path:
    """The folder holding ``postgres/`` and ``oracle/`` SQL (packaged or overridden)."""
    override = os.environ.get("ADVISOR_SQL_DIR")
    if override:
        return Path(override)
    return Path(str(resources.files("advisor.sql")))


def _split_header(raw: str) -> tuple[str, str]:
    lines = raw.splitlines()
    index = 0
    while index < len(lines) and (lines[index].startswith("--") or not lines[index].strip()):
        index += 1
    header = "\n".join(line for line in lines[:index] if line.strip())
    return header, "\n".join(lines[index:]).strip().rstrip(";").strip()


@cache
def _load(path: str, dbms: str, query: str, min_major: int) -> SqlFile:
    raw = Path(path).read_text(encoding="utf-8")
    header, text = _split_header(raw)
    if f"/* advisor:{query} */" not in text:
        raise BadInput(f"{path}: statement lacks the marker /* advisor:{query} */")
    return SqlFile(dbms, query, min_major, path, header, text)


def available(dbms: str) -> list[SqlFile]:
    """Every SQL file for *dbms*, sorted by query then version."""
    folder = sql_root() / dbms
    if not folder.is_dir():
        return []
    files = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            files.append(_load(str(entry), dbms, match["query"], int(match["major"])))
    return sorted(files, key=lambda f: (f.query, f.min_major))


def pick(dbms: str, query: str, major: int) -> SqlFile:
    """The variant of *query* for a server of version *major*.

    Raises :class:`Unsupported` naming the lowest supported version when none applies.
    """
    variants = [f for f in available(dbms) if f.query == query]
    if not variants:
        raise BadInput(f"no SQL file for {dbms} query {query!r} in {sql_root() / dbms}")
    fitting = [f for f in variants if f.min_major <= major]
    if not fitting:
        lowest = min(f.min_major for f in variants)
        raise Unsupported(f"{query} needs {dbms} >= {lowest} (server is {major})")
    return max(fitting, key=lambda f: f.min_major)
