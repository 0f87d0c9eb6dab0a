"""What an advisor Oracle SQL file reads: its views, and each selected column with its alias.

Parsed with sqlparse (select list, WHERE identifiers) plus a FROM/JOIN scan for the view
names, because sqlparse splits names such as ``perfstat.stats$filestatxs`` at the ``$``.
Used by the column-catalog test and by the replay cursor, which projects recorded view rows
through the very select list the collector runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlparse
from sqlparse.sql import Where
from sqlparse.tokens import DML, Comment, Keyword, Name

_KEYWORD_COLUMNS = {"name", "value", "event", "file_type", "status", "type", "target", "members", "bytes"}
_TABLES = re.compile(r"\b(?:from|join)\s+([a-z0-9_$#.]+)(?:\s+(?!on\b|where\b|join\b)([a-z_][a-z0-9_]*))?", re.I)


@dataclass(frozen=True)
class Column:
    """One select-list item: ``source`` column (None for an expression), its qualifier, alias."""

    source: str | None
    qualifier: str | None
    alias: str


@dataclass(frozen=True)
class Shape:
    views: dict[str, str]  # alias (or view name) -> upper-case view name
    columns: tuple[Column, ...]
    where_columns: tuple[tuple[str | None, str], ...]  # (qualifier, column)

    def view_of(self, qualifier: str | None) -> str:
        """The view a (possibly qualified) column comes from."""
        if qualifier is None:
            if len(set(self.views.values())) != 1:
                raise ValueError(f"unqualified column in a join of {sorted(set(self.views.values()))}")
            return next(iter(self.views.values()))
        return self.views[qualifier.lower()]


def _select_items(statement: sqlparse.sql.Statement) -> list[list[str]]:
    """Token texts of each select-list item (between SELECT and the top-level FROM)."""
    items: list[list[str]] = [[]]
    depth = 0
    started = False
    for token in statement.flatten():
        text = str(token)
        if token.is_whitespace or token.ttype in Comment:
            continue
        if not started:
            started = token.ttype is DML and text.lower() == "select"
            continue
        if depth == 0 and token.ttype in Keyword and text.lower() == "from":
            break
        depth += text.count("(") - text.count(")")
        if depth == 0 and text == ",":
            items.append([])
        else:
            items[-1].append(text)
    return items


def _column(item: list[str]) -> Column:
    lowered = [t.lower() for t in item]
    alias = None
    if len(lowered) >= 2 and lowered[-2] == "as":
        alias = lowered[-1]
        lowered = lowered[:-2]
    if "(" in lowered:
        return Column(None, None, alias or "".join(lowered))
    qualifier = None
    if len(lowered) == 3 and lowered[1] == ".":
        qualifier, lowered = lowered[0], lowered[2:]
    name = "".join(lowered)
    return Column(name.upper(), qualifier, alias or name)


def _where_columns(where: Where) -> list[tuple[str | None, str]]:
    """Column names in a WHERE clause; qualified names flatten to qualifier, '.', column."""
    found: list[tuple[str | None, str]] = []
    tokens = [t for t in where.flatten() if not t.is_whitespace and t.ttype is not Comment.Single]
    index = 0
    while index < len(tokens):
        token = tokens[index]
        text = str(token)
        is_name = token.ttype in Name and not text.startswith(":")
        if is_name or (token.ttype in Keyword and text.lower() in _KEYWORD_COLUMNS):
            if index + 2 < len(tokens) and str(tokens[index + 1]) == ".":
                found.append((text.lower(), str(tokens[index + 2]).upper()))
                index += 3
                continue
            found.append((None, text.upper()))
        index += 1
    return found


def shape(sql: str) -> Shape:
    """Parse one advisor statement."""
    views: dict[str, str] = {}
    for match in _TABLES.finditer(sql):
        name = match.group(1).upper()
        views[(match.group(2) or match.group(1)).lower()] = name
    # sqlparse reads "#" as a comment start after a qualifier ("s.ts# as ts_no"): hide it while parsing
    statement = sqlparse.parse(re.sub(r"(?<=[a-z0-9_$])#", _HASH, sql, flags=re.I))[0]
    where: list[tuple[str | None, str]] = []
    columns = [_unhide(_column(item)) for item in _select_items(statement)]
    for token in statement.tokens:
        if isinstance(token, Where):
            where = [(q, n.replace(_HASH.upper(), "#")) for q, n in _where_columns(token)]
    return Shape(views, tuple(columns), tuple(where))


_HASH = "_hash_"


def _unhide(column: Column) -> Column:
    source = column.source.replace(_HASH.upper(), "#") if column.source else None
    return Column(source, column.qualifier, column.alias.replace(_HASH, "#"))
