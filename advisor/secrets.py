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
* **Structure** (:func:`mask_by_rule`). ``password=VALUE`` (the value read by libpq's
  tokenising rules, so an escaped space or quote does not end it), URI userinfo
  ``scheme://user:***@`` and Oracle ``user/***@``, for text that quotes a string never given
  to :func:`remember_dsn`; and the shapes shell commands carry secrets in: an environment
  assignment whose name holds PASSWORD, PASS, PWD, SECRET or TOKEN (``PGPASSWORD=...``,
  ``AWS_SECRET_ACCESS_KEY=...``; not ``PGPASSFILE``), a long option of the same kind
  (``--password=...``, ``--token ...``), ``-u``/``--user user:pass`` (curl), and ``-p``
  where it means a password (``sshpass -p``, ``mysql -pVALUE``).

Settings that are commands or connection strings (``archive_command``,
``restore_command``, ``primary_conninfo``, Oracle archive destinations) are stored through
:func:`mask_settings` when they are collected, so no document, spool file or repository row
ever holds the secret; the rules alone decide there (a remembered DSN password is not
searched for, so it cannot mangle a path that happens to contain it).

A connection string libpq cannot parse is never echoed: :func:`parse_error` keeps libpq's
reason but masks the fragments it quotes, which may be pieces of the password.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
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

# shell words: '...' (no escapes), "..." (\ escapes), or a bare run up to a blank or an operator
_SHELL_VALUE = r"""'[^']*'|"(?:\\.|[^"\\])*"|(?:\\.|[^\s\\'";&|<>()`])+"""
_ENV_NAME = r"[A-Z0-9_]*(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN)[A-Z0-9_]*"
_ENV_ASSIGNMENT = re.compile(rf"(?<![\w-])(?![A-Z0-9_]*(?:FILE|PATH)=)({_ENV_NAME})=({_SHELL_VALUE})")
_LONG_OPTION = re.compile(
    rf"(?i)(?<![\w-])(--[a-z0-9-]*(?:password|passwd|secret|token)(?![a-z0-9-]*file)[a-z0-9-]*)(=|\s+)"
    rf"(?!-)({_SHELL_VALUE})")
_USER_COLON_PASS = re.compile(  # curl's -u user:password, bare or in one pair of quotes
    r"""(?<![\w-])(-[uU]|--user|--proxy-user)(=|\s*)"""
    r"""(?:(['"])([^:'"@/=\s-][^:'"@/]*):(?!/)(?:\\.|(?!\3).)*\3|()([^\s:'"@/=-][^\s:'"@/]*):(?!/)(?:\\.|[^\s'"\\])+)""")
_SSHPASS = re.compile(rf"(\bsshpass\s+(?:-\w+\s+)*?-p)(\s*)({_SHELL_VALUE})")
_MYSQL_P = re.compile(rf"(\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^;&|\n]*?\s-p)({_SHELL_VALUE})")

SECRET_MARKERS = (b"pass", b"pwd", b"@", b"secret", b"token", b"-u", b"--user", b"--proxy-user")
"""Lower-case bytes every pattern of :func:`mask_by_rule` needs one of (a fast pre-check on large texts)."""


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
    return mask_by_rule(text)


def mask_by_rule(text: str) -> str:
    """Hide what is shaped like a secret in *text*: the structural rules, no remembered secret.

    Idempotent (masking a masked text changes nothing), so a document masked at collection
    passes the push's check unchanged.

    >>> mask_by_rule("PGPASSWORD='s3 cret' psql -h db -c 'select 1'")
    "PGPASSWORD=*** psql -h db -c 'select 1'"
    >>> mask_by_rule("curl -sf -u arch:Pw9x -T %p https://store/%f")
    'curl -sf -u arch:*** -T %p https://store/%f'
    >>> mask_by_rule("host=primary user=repl password=Zz9 application_name=s1")
    'host=primary user=repl password=*** application_name=s1'
    >>> mask_by_rule("PGPASSFILE=/etc/pgpass rsync -a %p backup:/arch/%f")
    'PGPASSFILE=/etc/pgpass rsync -a %p backup:/arch/%f'
    """
    text = _ENV_ASSIGNMENT.sub(lambda m: f"{m.group(1)}={MASK}", text)
    text = _LONG_OPTION.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = _USER_COLON_PASS.sub(_user_masked, text)
    text = _SSHPASS.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = _MYSQL_P.sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = _KEY_VALUE.sub(lambda m: f"{m.group(1)}={MASK}", text)
    text = _URI_USERINFO.sub(lambda m: f"{m.group(1)}:{MASK}@", text)
    return _ORACLE_USER_PASSWORD.sub(lambda m: f"{m.group(1)}/{MASK}@", text)


def _user_masked(match: re.Match[str]) -> str:
    """``-u user:***``, in the quotes the password had."""
    quote = match.group(3) or ""
    return f"{match.group(1)}{match.group(2)}{quote}{match.group(4) or match.group(6)}:{MASK}{quote}"


def mask_settings(settings: Mapping[str, str]) -> dict[str, str]:
    """Server settings as a document stores them: every value through :func:`mask_by_rule`.

    Every value, not a list of names: a command or connection string may sit in any setting
    (``archive_command``, ``restore_command``, ``primary_conninfo``, ``log_archive_dest_2``),
    and a path or flag without a secret's shape comes out unchanged.
    """
    return {name: mask_by_rule(value) for name, value in settings.items()}
