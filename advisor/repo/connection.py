"""Sessions on the fleet repository: the DSN goes to libpq untouched, errors come back as one line.

TLS, passfiles and service files are libpq's business: ``sslmode``, ``sslrootcert``,
``sslcert``, ``service=`` in the DSN or ``PGSSLMODE``/``PGPASSFILE``/``PGSERVICEFILE`` in the
environment reach libpq unchanged, so whatever the DBA's policy says applies. advisor never
stores a DSN or a password in the repository or in the spool, and redacts them from messages.
"""

from __future__ import annotations

from typing import Any

import psycopg

from advisor.errors import AdvisorError, BadInput, ConnectionFailed, PrivilegeMissing, redact

APPLICATION_NAME = "advisor-repo"
CONNECT_TIMEOUT_S = 10


class DocumentRefused(BadInput):
    """The repository refused a document for what it holds (see :func:`refused_for_content`).

    The one push failure that is the document's own fault: sending it again cannot succeed,
    so it is not kept in the spool (a spooled one is set aside as ``*.rejected``).
    """


DOCUMENT_FAULT_CLASSES = ("22", "54")
"""SQLSTATE classes of a push that fails for what the document holds: 22 data exception (a time
out of range, a NUL in text), 54 program limit exceeded (a key too long for an index row, 54000;
a document nested too deeply, 54001). advisor's own statements are fixed: only the values differ."""
DOCUMENT_FAULT_STATES = frozenset({"23502", "23514"})
"""Integrity violations a document's values cause (a NULL where the schema needs a value, a CHECK);
a unique violation is not one (ON CONFLICT absorbs it, and a race would be the server's)."""


def refused_for_content(exc: psycopg.Error) -> bool:
    """Whether the server refused a push for what the document holds, decided by the SQLSTATE alone."""
    state = exc.sqlstate or ""
    return state[:2] in DOCUMENT_FAULT_CLASSES or state in DOCUMENT_FAULT_STATES


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return redact(" ".join(lines[:2])) if lines else type(exc).__name__


def connect(dsn: str, *, application_name: str = APPLICATION_NAME) -> psycopg.Connection[Any]:
    """Open a session on the repository (not autocommit: each document is one transaction)."""
    kwargs: dict[str, Any] = {"application_name": application_name}
    if "connect_timeout" not in dsn:
        kwargs["connect_timeout"] = CONNECT_TIMEOUT_S
    try:
        return psycopg.connect(dsn, **kwargs)
    except psycopg.Error as exc:
        shown = redact(dsn) if dsn else "(PG* environment defaults)"
        raise ConnectionFailed(f"cannot connect to the repository {shown}: {_first_line(exc)}") from None


ROLE_HINT = "collectors need the advisor_collector role, reports advisor_reader (see docs/fleet.md)"
"""What a missing grant means for a push or a report (other commands say what they need themselves)."""


def translate(exc: psycopg.Error, doing: str, *, pushing: bool = False, hint: str = ROLE_HINT) -> AdvisorError:
    """A driver error met while *doing* something, as the advisor error the user should see.

    A lost session (``pg_terminate_backend``, a network cut, a server crash) is a connection
    failure (exit 3); a missing grant names the privilege (exit 5, with *hint*: what the
    command needs); a refusal for what a document holds (:func:`refused_for_content`) met
    while *pushing* it is the document's fault (:class:`DocumentRefused`, exit 6);
    any other server error (read-only, disk full, deadlock, timeout) is exit 1 with the
    server's words.
    """
    text = _first_line(exc)
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return PrivilegeMissing(f"{doing}: {text}", hint=hint)
    if _session_lost(exc):
        return ConnectionFailed(f"{doing}: the repository connection was lost ({text})")
    if pushing and refused_for_content(exc):
        return DocumentRefused(f"{doing}: the repository refused the document (SQLSTATE {exc.sqlstate}): {text}")
    return AdvisorError(f"{doing}: {text}")


def _session_lost(exc: psycopg.Error) -> bool:
    """The session is gone: no SQLSTATE (the client saw the socket close), class 08, or a shutdown.

    Other operational errors (a deadlock, a full disk, a lock or statement timeout) come from
    a session that still works; they are the server's own failures, reported as such.
    """
    if isinstance(exc, psycopg.InterfaceError):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate or ""
    return not state or state.startswith("08") or state in ("57P01", "57P02", "57P03")
