"""Hide passwords: in connection strings, and in any message or file that might quote one.

Two layers, both applied by :func:`redact`, which every user-facing message goes through
(:meth:`advisor.errors.AdvisorError.one_line`, collector failure reasons, internal errors):

* **Known secrets.** When a connection string is about to be used, :func:`remember_dsn`
  parses it with libpq's own rules (psycopg's ``conninfo_to_dict``: key=value with
  ``\\``-escapes and ``'...'`` quoting, and ``postgresql://`` URIs) or Oracle's
  (``user/password@connect``, the password optionally ``"quoted"``) and remembers each
  password in every form it may come back in: as parsed, as written, percent-encoded.
  Any later occurrence anywhere in a message is replaced. Secrets shorter than
  :data:`MIN_SECRET` characters are not searched for in free text (they would mangle every
  message); the structural rules below still hide them after ``password=``.
* **Structure.** ``password=VALUE`` (the value read by libpq's tokenising rules, so an
  escaped space or quote does not end it), URI userinfo ``scheme://user:***@`` and Oracle
  ``user/***@``, for text that quotes a string never given to :func:`remember_dsn`.

A connection string libpq cannot parse is never echoed: :func:`parse_error` keeps libpq's
reason but masks the fragments it quotes, which may be pieces of the password.
"""

from __future__ import annotations

import os
import re
from urllib.parse import unquote, urlsplit

MIN_SECRET = 3
"""Shorter remembered secrets are hidden only where the structure shows them."""

MASK = "***"

_PASSWORD_KEYS = ("password", "sslpassword", "wallet_password")

_known: set[str] = set()

# libpq: a value is '...' (\' and \\ escaped inside) or runs to the next blank, \ escaping one character
# (an Oracle-style "..." value counts only when the quote closes before a blank)
_LIBPQ_VALUE = r"'(?:\\.|[^'\\])*(?:'|$)|\"[^\"]*\"(?=\s|$)|(?:\\.|[^\s\\])+"
_KEY_VALUE = re.compile(r"(?i)\b(password|passwd|pwd|sslpassword|wallet_password)\s*=\s*(" + _LIBPQ_VALUE + ")")
_URI_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^:/@\s]*):\S*@")
_ORACLE_USER_PASSWORD = re.compile(r"(?<![\w/:\"])([A-Za-z_][\w$#]*|\"[^\"/@]+\")/(\"[^\"]*\"|[^@\s]+)@")
_ORACLE_CONNECT = re.compile(r"^\s*(?:[A-Za-z_][\w$#]*|\"[^\"]+\")/(\"[^\"]*\"|[^@\"]*)(?:@|$)")
_QUOTED_FRAGMENT = re.compile(r'"([^"]*)"')


def remember(secret: str | None) -> None:
    """Hide *secret* from now on wherever :func:`redact` sees it."""
    if secret:
        _known.add(secret)


def forget_all() -> None:
    """Drop every remembered secret (tests; a long-lived process switching credentials)."""
    _known.clear()


def postgres_passwords(dsn: str) -> list[str]:
    """The passwords a libpq connection string carries, parsed by libpq, in every written form.

    Empty when libpq cannot parse it (the connection attempt then fails before any
    password is sent, and :func:`parse_error` shows no fragment of it).
    """
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(dsn)
    except ProgrammingError:
        return []
    found = [str(params[key]) for key in _PASSWORD_KEYS if params.get(key)]
    if "://" in dsn:
        try:
            userinfo_password = urlsplit(dsn.strip()).password
        except ValueError:
            userinfo_password = None
        if userinfo_password:
            found += [userinfo_password, unquote(userinfo_password)]
        found += [unquote(m.group(1)) for m in re.finditer(r"(?i)[?&](?:ssl)?password=([^&#\s]*)", dsn)]
        found += [m.group(1) for m in re.finditer(r"(?i)[?&](?:ssl)?password=([^&#\s]*)", dsn)]
    found += [m.group(2) for m in _KEY_VALUE.finditer(dsn)]  # as written: quotes and backslashes included
    return [secret for secret in found if secret]


def oracle_passwords(connect: str) -> list[str]:
    """The password of an Oracle ``user/password@connect_identifier`` string, quoted and not."""
    match = _ORACLE_CONNECT.match(connect)
    if not match or not match.group(1):
        return []
    written = match.group(1)
    return [written, written.strip('"')] if written.startswith('"') else [written]


def remember_dsn(dsn: str | None, dbms: str = "postgres") -> None:
    """Parse *dsn* (and PGPASSWORD for PostgreSQL) and remember every password found."""
    if dbms == "postgres":
        remember(os.environ.get("PGPASSWORD"))
    if not dsn:
        return
    for secret in (postgres_passwords(dsn) if dbms == "postgres" else oracle_passwords(dsn)):
        remember(secret)


def parse_error(reason: str) -> str:
    """libpq's reason for rejecting a connection string, with the fragments it quotes masked."""
    return _QUOTED_FRAGMENT.sub(lambda m: m.group(0) if m.group(1) == "=" else f'"{MASK}"', reason)


def redact(text: str) -> str:
    """Hide remembered secrets and anything shaped like a password in *text*.

    >>> redact("host=db password=s3cret user=x")
    'host=db password=*** user=x'
    >>> redact(r"host=db password=Zz9se\\ cretE user=x")
    'host=db password=*** user=x'
    >>> redact("postgresql://bob:s3cret@db:5432/app")
    'postgresql://bob:***@db:5432/app'
    >>> redact("scott/tiger@orcl")
    'scott/***@orcl'
    """
    for secret in sorted(_known, key=len, reverse=True):
        if len(secret) >= MIN_SECRET:
            text = text.replace(secret, MASK)
    text = _KEY_VALUE.sub(lambda m: f"{m.group(1)}={MASK}", text)
    text = _URI_USERINFO.sub(lambda m: f"{m.group(1)}:{MASK}@", text)
    return _ORACLE_USER_PASSWORD.sub(lambda m: f"{m.group(1)}/{MASK}@", text)
