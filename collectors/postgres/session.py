"""Open read-only monitoring sessions and run advisor's SQL files on them.

Every session is ``autocommit`` (``stats_fetch_consistency = cache`` would otherwise freeze
counters for the whole implicit transaction: the wait sampling between two snapshots reads
them afresh each time), read-only by default, named ``advisor`` in pg_stat_activity, and
bounded by ``statement_timeout``; one snapshot is one explicit transaction, so its counters
are read at one point and the collector's own reads can be told apart (``own_io``). Driver errors become one-line
:class:`AdvisorError` subclasses here, so no traceback, DSN or password reaches the user.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from advisor.collect.sqlfiles import pick
from advisor.collectors.postgres.rows import DEFAULT_PARAMS, ROWS
from advisor.errors import AdvisorError, ConnectionFailed, PrivilegeMissing, Unsupported, redact
from advisor.secrets import parse_error, remember_dsn

if TYPE_CHECKING:
    import psycopg

MIN_VERSION_NUM = 140000
DEFAULT_STATEMENT_TIMEOUT_S = 30.0
DEFAULT_CONNECT_TIMEOUT_S = 10

T = TypeVar("T")


@dataclass
class PgSession:
    """The main connection plus what is needed to open one more per database."""

    conn: psycopg.Connection[Any]
    dsn: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def version_num(self) -> int:
        """server_version_num as the protocol reported it at login."""
        return int(self.conn.info.server_version)

    @property
    def major(self) -> int:
        """Major version (14, 15, ... 18)."""
        return self.version_num // 10000


def _target(dsn: str, dbname: str | None = None) -> str:
    shown = redact(dsn) if dsn else "(PG* environment defaults)"
    return f"{shown} database {dbname}" if dbname else shown


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return " ".join(lines[:2]) if lines else type(exc).__name__


def translate_connect_error(exc: BaseException, dsn: str, dbname: str | None = None) -> AdvisorError:
    """Turn a libpq connection failure into one line that says what to check."""
    text = _first_line(exc)
    lower = text.lower()
    target = _target(dsn, dbname)
    if "ssl negotiation" in lower or "expected authentication request" in lower or "invalid response" in lower:
        return ConnectionFailed(
            f"cannot connect to {target}: the server did not answer like PostgreSQL ({redact(text)})",
            hint="check host and port",
        )
    if "password authentication failed" in lower or "no password supplied" in lower:
        return ConnectionFailed(f"cannot connect to {target}: {redact(text)}", hint="check the user and password")
    if "role" in lower and "does not exist" in lower:
        return ConnectionFailed(f"cannot connect to {target}: {redact(text)}", hint="check the user name")
    if "does not exist" in lower:
        return ConnectionFailed(f"cannot connect to {target}: {redact(text)}", hint="check the database name")
    return ConnectionFailed(f"cannot connect to {target}: {redact(text)}")


def open_connection(dsn: str, options: Mapping[str, Any], dbname: str | None = None) -> psycopg.Connection[Any]:
    """A read-only, autocommit monitoring connection (to *dbname* when given)."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    remember_dsn(dsn, "postgres")  # before any message can quote it
    try:
        conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as exc:  # libpq's reason may quote a piece of the password
        raise ConnectionFailed(f"the connection string is not valid libpq syntax: {parse_error(_first_line(exc))}",
                               hint="quote a value holding blanks as 'va lue', escape ' and \\ with \\") from None
    timeout_s = float(options.get("statement_timeout_s") or DEFAULT_STATEMENT_TIMEOUT_S)
    # A snapshot is one transaction (own_io.py) with the client's work between its queries (file sizes of
    # 100,000 relations): a server-wide idle_in_transaction_session_timeout must not end it midway.
    session_options = (f"-c default_transaction_read_only=on -c statement_timeout={int(timeout_s * 1000)} "
                       "-c idle_in_transaction_session_timeout=0")
    kwargs: dict[str, Any] = {
        "autocommit": True,
        "application_name": "advisor",
        "options": session_options,
    }
    if "connect_timeout" not in dsn:
        kwargs["connect_timeout"] = int(options.get("connect_timeout_s") or DEFAULT_CONNECT_TIMEOUT_S)
    if dbname is not None:
        kwargs["dbname"] = dbname
    try:
        return psycopg.connect(dsn, **kwargs)
    except psycopg.Error as exc:
        raise translate_connect_error(exc, dsn, dbname) from None
    except (OSError, ValueError) as exc:
        raise ConnectionFailed(f"cannot connect to {_target(dsn, dbname)}: {redact(_first_line(exc))}") from None


def connect(dsn: str | None, options: Mapping[str, Any]) -> PgSession:
    """Open the main session and refuse servers older than 14."""
    text = dsn or ""
    conn = open_connection(text, options)
    session = PgSession(conn, text, dict(options))
    if session.version_num < MIN_VERSION_NUM:
        version = session.version_num
        conn.close()
        raise Unsupported(f"PostgreSQL {version // 10000} is not supported: advisor needs 14 or later")
    return session


def run_tuples(
    conn: psycopg.Connection[Any], major: int, query: str, params: Mapping[str, object] | None = None
) -> list[tuple[Any, ...]]:
    """Like :func:`run_query` but plain tuples (the per-relation hot path); columns checked once.

    Rows come in binary format: integers are not printed by the server and parsed here, which
    saves a fifth of the client time of 10,000-row results.
    """
    import dataclasses

    rows: list[tuple[Any, ...]] = []

    def fetch(cur: Any) -> None:
        expected = [f.name for f in dataclasses.fields(ROWS[query])]
        names = [d.name for d in cur.description or ()]
        if names != expected:
            raise AdvisorError(f"query {query} returned columns {names}, expected {expected}")
        rows.extend(cur.fetchall())

    _execute(conn, major, query, params, None, fetch, binary=True)
    return rows


def run_query(
    conn: psycopg.Connection[Any], row_type: type[T], query: str, major: int,
    params: Mapping[str, object] | None = None,
) -> list[T]:
    """Run ``sql/postgres/<query>`` for *major*; each row a *row_type* (Oracle's argument order).

    *row_type* is ``ROWS[query]`` (its fields are the file's column aliases) or ``dict``;
    psycopg's ``class_row`` builds it by column name, so a file whose columns differ from the
    fields fails on its first row instead of filling the wrong field. A params mapping is
    always passed (psycopg then treats ``%`` as a placeholder marker, which is why the files
    write ``%%`` for a literal percent).
    """
    from psycopg.rows import class_row

    rows: list[T] = []
    _execute(conn, major, query, params, class_row(row_type), lambda cur: rows.extend(cur.fetchall()))
    return rows


def _execute(
    conn: psycopg.Connection[Any],
    major: int,
    query: str,
    params: Mapping[str, object] | None,
    factory: Any,
    consume: Callable[[Any], None],
    binary: bool = False,
) -> None:
    import psycopg

    sql = pick("postgres", query, major)
    bound = dict(DEFAULT_PARAMS.get(query, {}))
    bound.update(params or {})
    try:
        cursor = conn.cursor(row_factory=factory, binary=binary) if factory is not None else conn.cursor(binary=binary)
        with cursor as cur:
            cur.execute(sql.text.encode(), bound)
            consume(cur)
    except psycopg.errors.InsufficientPrivilege as exc:
        raise PrivilegeMissing(
            f"query {query} was refused: {redact(_first_line(exc))}",
            hint="GRANT pg_monitor TO the advisor role",
        ) from None
    except psycopg.errors.QueryCanceled:
        raise AdvisorError(
            f"query {query} exceeded the statement timeout", hint="raise --statement-timeout"
        ) from None
    except psycopg.OperationalError as exc:
        raise ConnectionFailed(f"lost the connection during query {query}: {redact(_first_line(exc))}") from None
