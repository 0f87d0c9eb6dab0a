"""Quote names and paths that come from the database before they enter a script.

A tablespace may be called ``x"; drop table t; --`` and a path may hold a quote or a
newline: every identifier is double-quoted with inner ``"`` doubled, every SQL string
literal single-quoted with inner ``'`` doubled, every shell word passed through
:func:`shlex.quote`, and comments never carry a line break or another control character.

A name that a second parser reads again needs the quoting of *that* parser, applied first:

* a list setting (``temp_tablespaces``) splits and unquotes its own elements, so the value is
  written as a list of identifiers (:func:`identifier_list`), never as one string literal;
* a relation name handed to a program that casts it to ``regclass`` (pg_repack ``--table``)
  must be the SQL-quoted qualified name (:func:`qualified`), then shell-quoted; a database
  name it pastes into a libpq connection string gets libpq's quoting (:func:`conninfo_value`);
* SQL*Plus reads each line before Oracle does: ``&`` starts a substitution variable (the
  scripts begin with ``SET DEFINE OFF``) and a line break inside a literal can end the
  statement, so Oracle scripts refuse names with line breaks (:func:`one_line`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

from advisor.escape import CONTROL

_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")
_LABEL = re.compile(r"[^A-Za-z0-9_.-]+")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]+")


def ident(name: str) -> str:
    """A SQL identifier, always quoted so case and odd characters survive harmlessly.

    The name is kept exactly (a PostgreSQL name may hold a line break, and dropping it would
    name another object); only NUL, which no name can hold, is removed.
    """
    return '"' + name.replace("\x00", "").replace('"', '""') + '"'


def literal(text: str) -> str:
    """A SQL string literal (standard_conforming_strings: backslashes are plain)."""
    return "'" + text.replace("\x00", "").replace("'", "''") + "'"


def identifier_list(names: Iterable[str]) -> str:
    """The value of a list setting of names: ``temp3, "Odd Name"`` as ``"temp3", "Odd Name"``.

    ``ALTER SYSTEM SET temp_tablespaces = '"x"'`` would store one element literally named
    ``"x"`` (quotes included); identifiers are stored as the names themselves.
    """
    return ", ".join(ident(name) for name in names)


def qualified(dotted: str) -> str:
    """``schema.relation`` as SQL (``"public"."tab ""a' b;c"``), for a ``::regclass`` reader.

    Relation names are recorded as ``nspname || '.' || relname``; the schema is the part
    before the first dot (a schema name that itself holds a dot cannot be told apart).
    """
    schema, dot, relation = dotted.partition(".")
    return f"{ident(schema)}.{ident(relation)}" if dot else ident(dotted)


def conninfo_value(value: str) -> str:
    r"""*value* as one value of a libpq connection string (``'app "x\' y'``), plain when it can be.

    pg_repack builds ``dbname=<--dbname>`` into a connection string itself, so a database
    name with a blank, quote or ``=`` must arrive in libpq's own quoting: inside single
    quotes, a backslash or a single quote is preceded by a backslash (libpq's
    ``conninfo_parse``). Anything but letters, digits and ``_`` is quoted, so no byte of a
    multi-byte character can pass for a blank in the client's locale.

    >>> print(conninfo_value("app_1"))
    app_1
    >>> print(conninfo_value("a=b c'd\\e"))
    'a=b c\'d\\e'
    """
    if _PLAIN_NAME.fullmatch(value):
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def psql_connect(database: str) -> str:
    r"""A psql ``\connect`` line to *database*, keeping the host, port and user psql was started with.

    The plan's statements for each database must run connected to it (``ALTER TABLE ALL IN
    TABLESPACE`` moves only the current database's relations). Three readers see the name,
    each undone in turn:

    * libpq: the name goes in a connection string (``-reuse-previous=on 'dbname=...'``), so a
      database called ``a=b`` or ``postgresql://x`` is not taken for a connection string;
    * psql reads ``\connect``'s first argument as an identifier that keeps its case: double
      quotes in it are removed (``""`` is one quote), so the whole argument is double-quoted;
    * psql's single quotes around it: ``''`` stands for a quote, backslash escapes are
      processed (a backslash is doubled; a control character, which would end the line, is
      written as an octal escape).

    >>> print(psql_connect("app"))
    \connect -reuse-previous=on '"dbname=app"'
    >>> print(psql_connect("it's odd"))
    \connect -reuse-previous=on '"dbname=''it\\''s odd''"'
    """
    value = '"' + ("dbname=" + conninfo_value(database.replace("\x00", ""))).replace('"', '""') + '"'
    quoted = "".join(_psql_quoted_char(ch) for ch in value)
    return f"\\connect -reuse-previous=on '{quoted}'"


def _psql_quoted_char(ch: str) -> str:
    if ch == "'":
        return "''"
    if ch == "\\":
        return "\\\\"
    if _UNPRINTABLE.match(ch):
        return f"\\{ord(ch):03o}"
    return ch


def one_line(text: str) -> bool:
    """True when *text* holds no line break or other control character (safe for SQL*Plus)."""
    return _UNPRINTABLE.search(text) is None


def shell(word: str) -> str:
    """One shell word, quoted for POSIX sh."""
    return shlex.quote(word.replace("\x00", ""))


def comment(text: str) -> str:
    r"""Text safe inside a ``--`` or ``#`` comment: one line, no control characters.

    Every character :data:`advisor.escape.CONTROL` names becomes a blank: C0 and C1
    controls (U+009B is a CSI on a terminal that reads 8-bit controls), DEL, and the bidi
    overrides, isolates and marks that would show the script's text in another order than
    the shell or SQL reads it (U+202E).

    >>> comment("users\u202e\x9b[2J\r\nDROP")
    'users  [2J  DROP'
    """
    return CONTROL.sub(" ", text)


def control_held(text: str) -> str:
    r"""What keeps *text* off a SQL*Plus line, in words: ``a line break`` or ``a control character (\x1b)``.

    >>> control_held("a\nb"), control_held("a\x1bb")
    ('a line break', 'a control character (\\x1b)')
    """
    if "\n" in text or "\r" in text:
        return "a line break"
    found = _UNPRINTABLE.search(text)
    return f"a control character (\\x{ord(found.group(0)):02x})" if found else "no control character"


def label(text: str, limit: int = 32) -> str:
    """A conservative name for partitions and directories: [A-Za-z0-9_.-], never empty."""
    cleaned = _LABEL.sub("_", text).strip("._-")[:limit]
    return cleaned or "area"
