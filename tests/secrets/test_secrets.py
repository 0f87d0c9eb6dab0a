"""Passwords never reach a message: libpq's and Oracle's own quoting rules, hostile passwords.

Each DSN below is what a user may type; the second item is the password as libpq (or
Oracle) reads it. The message checks look for every run of four or more letters and digits
of the password: none may survive :func:`advisor.secrets.redact`, whether the DSN was
remembered first (the connect path) or appears in text nobody parsed (structure only).
"""

from __future__ import annotations

import re

import pytest
from psycopg.conninfo import conninfo_to_dict

from advisor.errors import ConnectionFailed
from advisor.secrets import oracle_passwords, parse_error, postgres_passwords, redact, remember_dsn

POSTGRES = [
    (r"host=db user=app password=Zz9se\ cretE dbname=x", "Zz9se cretE"),
    (r"host=db password='Qq1\' Leak2' user=app", "Qq1' Leak2"),
    (r"password='Ww3 \"dq\" Pq4\\' host=db", 'Ww3 "dq" Pq4\\'),
    ("host=db password=Rr5=eq;semi'Yy8 user=app", "Rr5=eq;semi'Yy8"),
    ("postgresql://app:Uu6%20sp%40at%2FSl4sh@db:5432/x", "Uu6 sp@at/Sl4sh"),
    ("postgresql://app@db/x?password=Ee4%26Amp%20Gg7", "Ee4&Amp Gg7"),
    ("host=db sslpassword='Kk2 Key9' user=app", "Kk2 Key9"),
]
ORACLE = [
    ('scott/"Oo1 Pa@ss/Ww9"@db:1521/orclpdb', "Oo1 Pa@ss/Ww9"),
    ("scott/Tiger7Cat9@//db:1521/orcl", "Tiger7Cat9"),
    ('"Odd User"/Lq2Lq3Lq4@(DESCRIPTION=(ADDRESS=(HOST=db)(PORT=1521)))', "Lq2Lq3Lq4"),
]


def fragments(password: str) -> list[str]:
    """Runs of 4+ letters/digits: any of them in a message is a leak."""
    return re.findall(r"[A-Za-z0-9]{4,}", password)


@pytest.mark.parametrize(("dsn", "password"), POSTGRES)
def test_libpq_parses_the_password_the_table_states(dsn: str, password: str) -> None:
    parsed = conninfo_to_dict(dsn)
    assert password in (parsed.get("password"), parsed.get("sslpassword"))
    assert password in postgres_passwords(dsn)


@pytest.mark.parametrize(("dsn", "password"), POSTGRES)
def test_postgres_password_hidden_by_structure_alone(dsn: str, password: str) -> None:
    message = ConnectionFailed(f"cannot connect to {dsn}: timeout").one_line()
    assert all(piece not in message for piece in fragments(password)), message
    assert "db" in message  # the rest of the DSN stays readable


@pytest.mark.parametrize(("dsn", "password"), POSTGRES)
def test_remembered_postgres_password_hidden_anywhere(dsn: str, password: str) -> None:
    remember_dsn(dsn, "postgres")
    for text in (f"server said: {password}", f"echo [{password}] twice {password}", dsn):
        shown = redact(text)
        assert all(piece not in shown for piece in fragments(password)), shown


@pytest.mark.parametrize(("connect", "password"), ORACLE)
def test_oracle_connect_string_password_hidden(connect: str, password: str) -> None:
    assert password in oracle_passwords(connect)
    structural = redact(f"cannot connect to {connect}: ORA-12541")
    assert all(piece not in structural for piece in fragments(password)), structural
    remember_dsn(connect, "oracle")
    shown = redact(f"listener said {password}")
    assert all(piece not in shown for piece in fragments(password)), shown


def test_libpq_parse_errors_lose_the_fragments_they_quote() -> None:
    with pytest.raises(Exception) as caught:
        conninfo_to_dict("host=db password=Zz9 Sq8Leak")
    shown = parse_error(str(caught.value))
    assert "Sq8Leak" in str(caught.value) and "Sq8Leak" not in shown
    assert shown.startswith('missing "=" after "***"')


def test_short_remembered_secrets_do_not_mangle_messages() -> None:
    remember_dsn("host=db password=ab", "postgres")
    assert redact("table abc in database ab") == "table abc in database ab"
    assert redact("password=ab") == "password=***"
