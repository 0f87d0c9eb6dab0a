"""Open an Oracle monitoring session and run advisor's SQL files on it.

python-oracledb runs in thin mode by default (no client libraries). Thin mode cannot speak
native network encryption (DPY-3001), old 10G password verifiers (DPY-3015) or servers
older than 12.1 (DPY-3010); those become one line telling the user to pass ``--thick``,
which loads the Oracle Client libraries before any connection exists (only one mode per
process is allowed). Every driver error is turned into an :class:`AdvisorError` here so no
traceback, DSN or password reaches the user.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from advisor.collect.sqlfiles import pick
from advisor.collectors.oracle.rows import OracleConnection
from advisor.errors import AdvisorError, ConnectionFailed, PrivilegeMissing, Unsupported, redact
from advisor.secrets import remember, remember_dsn

R = TypeVar("R")

THICK_REASONS = {
    "DPY-3001": "the server requires native network encryption or checksumming",
    "DPY-3010": "thin mode does not support this server version (older than 12.1)",
    "DPY-3015": "the account only has an old (10G) password verifier",
    "DPY-3012": "the national character set is not supported in thin mode",
}

_CONNECTION_CODES = {
    1017: "invalid username or password (ORA-01017)",
    28000: "the account is locked (ORA-28000)",
    28001: "the password has expired (ORA-28001)",
    12541: "no listener at that address (ORA-12541)",
    12514: "the listener does not know that service name (ORA-12514)",
    12505: "the listener does not know that SID (ORA-12505)",
    12154: "could not resolve the connect identifier (ORA-12154)",
    12170: "connection timed out (ORA-12170)",
    1033: "the database is starting up or shutting down (ORA-01033)",
    1034: "the database is not available (ORA-01034)",
}

_VIEW_IN_SQL = re.compile(r"\bfrom\s+([a-z0-9_$.]+)", re.IGNORECASE)


def error_code(exc: BaseException) -> tuple[str, int]:
    """The (full_code, numeric code) of an oracledb error: ("ORA-00942", 942), ("DPY-3001", 0)."""
    detail = exc.args[0] if exc.args else None
    full = str(getattr(detail, "full_code", "") or "")
    code = int(getattr(detail, "code", 0) or 0)
    if not full:
        match = re.match(r"([A-Z]{3}-\d{4,5})", str(detail or exc))
        full = match.group(1) if match else ""
    if not code and full.startswith("ORA-"):
        code = int(full[4:])
    return full, code


def _first_line(exc: BaseException) -> str:
    detail = exc.args[0] if exc.args else exc
    text = str(getattr(detail, "message", detail)).strip().splitlines()
    return text[0] if text else type(exc).__name__


def translate_connect_error(exc: BaseException, dsn: str | None) -> AdvisorError:
    """Turn a driver error raised by ``connect`` into a one-line advisor error."""
    full, code = error_code(exc)
    target = redact(dsn or "(default connect string)")
    if full in THICK_REASONS:
        return Unsupported(
            f"cannot connect to {target} in python-oracledb thin mode: {THICK_REASONS[full]} ({full})",
            hint="run again with --thick to use the Oracle Client libraries",
        )
    if full.startswith("DPY-3"):
        return Unsupported(
            f"cannot connect to {target} in thin mode: {redact(_first_line(exc))}",
            hint="run again with --thick to use the Oracle Client libraries",
        )
    if code in _CONNECTION_CODES:
        return ConnectionFailed(f"cannot connect to {target}: {_CONNECTION_CODES[code]}")
    return ConnectionFailed(f"cannot connect to {target}: {redact(_network_reason(exc))}")


def _network_reason(exc: BaseException) -> str:
    """First line of a driver error plus its cause line ("[Errno 111] Connection refused"), ids removed."""
    detail = exc.args[0] if exc.args else exc
    lines = [line.strip() for line in str(getattr(detail, "message", detail)).splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("Help:")]
    if not lines:
        return type(exc).__name__
    first = re.sub(r"\s*\(CONNECTION_ID=[^)]*\)", "", lines[0])
    return first if len(lines) == 1 else f"{first} {lines[-1]}"


def grant_for(view: str) -> str:
    """The GRANT that makes *view* readable: V$X is a synonym, the grant names SYS.V_$X."""
    name = view.upper()
    owner = ""
    if "." in name:
        owner, name = name.split(".", 1)
    if name.startswith(("V$", "GV$")):
        name = name.replace("$", "_$", 1)
        return f"GRANT SELECT ON SYS.{name} TO <user> (or GRANT SELECT_CATALOG_ROLE TO <user>)"
    if owner:
        return f"GRANT SELECT ON {owner}.{name} TO <user>"
    return f"GRANT SELECT ON SYS.{name} TO <user> (or GRANT SELECT_CATALOG_ROLE TO <user>)"


def translate_query_error(exc: BaseException, query: str, sql: str) -> AdvisorError:
    """Turn a driver error raised by a query into a one-line advisor error naming the grant."""
    full, code = error_code(exc)
    views = _VIEW_IN_SQL.findall(sql)
    view = views[0] if views else query
    if code in (942, 1031):
        return PrivilegeMissing(f"query {query}: cannot read {view.upper()} ({full})", hint=grant_for(view))
    if code in (3113, 3114, 3135) or full in ("DPY-4011", "DPY-1001"):
        return ConnectionFailed(f"query {query}: the connection was lost ({full})")
    if code == 3156 or full == "DPY-4024":
        return ConnectionFailed(f"query {query}: call timeout exceeded ({full})")
    return AdvisorError(f"query {query} failed: {redact(_first_line(exc))}")


def row_maker(row_type: type[R], description: Any) -> Callable[..., R]:
    """Row factory: each row as a *row_type* built by column name. Oracle upper-cases unquoted
    aliases; the row types' fields are the lower-case aliases (a test holds every SQL file's
    select list equal to its type's fields, so a mismatch fails there, not here)."""
    names = [str(column[0]).lower() for column in description]
    if row_type is dict:  # plain rows, for row counts where building objects would cost seconds

        def plain(*values: Any) -> Any:
            return dict(zip(names, values, strict=True))

        return plain

    def make(*values: Any) -> R:
        return row_type(**dict(zip(names, values, strict=True)))

    return make


def open_connection(dsn: str | None, options: Mapping[str, Any]) -> OracleConnection:
    """Connect with python-oracledb (thin unless ``options["thick"]``) as module 'advisor'."""
    import oracledb

    if options.get("thick"):
        try:
            oracledb.init_oracle_client(lib_dir=options.get("lib_dir"))
        except oracledb.Error as exc:
            raise Unsupported(
                f"--thick: cannot load the Oracle Client libraries: {_first_line(exc)}",
                hint="install Oracle Instant Client and set LD_LIBRARY_PATH or pass its directory",
            ) from None
    remember_dsn(dsn, "oracle")  # before any message can quote it
    remember(options.get("password"))
    remember(options.get("wallet_password"))
    kwargs: dict[str, Any] = {"dsn": dsn}
    for key in ("user", "password", "config_dir", "wallet_location", "wallet_password"):
        if options.get(key):
            kwargs[key] = options[key]
    try:
        conn = oracledb.connect(**kwargs)
    except oracledb.Error as exc:
        raise translate_connect_error(exc, dsn) from None
    conn.module = "advisor"
    conn.action = "collect"
    conn.call_timeout = int(float(options.get("statement_timeout_s", 30)) * 1000)
    return conn


def run_query(conn: OracleConnection, row_type: type[R], query: str, major: int,
              binds: Mapping[str, Any] | None = None) -> list[R]:
    """Run the SQL file for *query* picked for *major*; each row a *row_type*."""
    sql = pick("oracle", query, major).text
    cursor = conn.cursor()
    try:
        try:
            cursor.execute(sql, dict(binds or {}))
            cursor.rowfactory = row_maker(row_type, cursor.description)
            rows: list[R] = cursor.fetchall()
        except AdvisorError:
            raise
        except Exception as exc:  # noqa: BLE001 - any driver error becomes one line
            raise translate_query_error(exc, query, sql) from None
    finally:
        cursor.close()
    return rows
