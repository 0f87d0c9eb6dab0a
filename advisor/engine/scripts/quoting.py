"""Quote names and paths that come from the database before they enter a script.

A tablespace may be called ``x"; drop table t; --`` and a path may hold a quote or a
newline: every identifier is double-quoted with inner ``"`` doubled, every SQL string
literal single-quoted with inner ``'`` doubled, every shell word passed through
:func:`shlex.quote`, and comments never carry a line break.
"""

from __future__ import annotations

import re
import shlex

_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")
_LABEL = re.compile(r"[^A-Za-z0-9_.-]+")


def ident(name: str) -> str:
    """A SQL identifier, always quoted so case and odd characters survive harmlessly."""
    return '"' + _UNPRINTABLE.sub("", name).replace('"', '""') + '"'


def literal(text: str) -> str:
    """A SQL string literal (standard_conforming_strings: backslashes are plain)."""
    return "'" + text.replace("\x00", "").replace("'", "''") + "'"


def shell(word: str) -> str:
    """One shell word, quoted for POSIX sh."""
    return shlex.quote(word.replace("\x00", ""))


def comment(text: str) -> str:
    """Text safe inside a ``--`` or ``#`` comment: one line, no control characters."""
    return _UNPRINTABLE.sub(" ", text)


def label(text: str, limit: int = 32) -> str:
    """A conservative name for partitions and directories: [A-Za-z0-9_.-], never empty."""
    cleaned = _LABEL.sub("_", text).strip("._-")[:limit]
    return cleaned or "area"


def truncate_ident(name: str, limit_bytes: int = 63) -> str:
    """Cut a name to PostgreSQL's NAMEDATALEN-1 bytes without splitting a character."""
    return name.encode("utf-8")[:limit_bytes].decode("utf-8", "ignore")
