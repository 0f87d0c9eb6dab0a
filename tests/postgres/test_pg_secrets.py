"""Hostile passwords against a real server: no fragment in any message or output file.

The role's password holds what libpq quotes and escapes (blanks, ``'``, ``"``, ``\\``,
``=``, ``;``, ``@``, ``/``); every DSN form a user may type carries it (key=value with an
escaped blank, quoted with escaped quotes, a URI with percent-encoding). Each error path
(bad password, missing database, bad host, unreachable port, unparseable DSN, unreachable
Oracle listener) and each output (snapshot, workload, report json/markdown/html, and stderr
of every run) is searched for every run of 4+ letters and digits of the password.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from advisor.engine.scripts.quoting import literal
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer, available_versions, free_port, running_postgres
from tests.helpers.pg_checks import EXERCISED

pytestmark = [pytest.mark.pg, pytest.mark.slow]

PASSWORD = "Zz9se cretE 'Qq1' \"Ww3\\Leak2\" =;@/Pq4x"
WRONG = "Wr0ng Vv5x 'Yy8Yy8' \\Uu7Uu7"


def fragments(password: str) -> list[str]:
    """Runs of 4+ letters/digits: any of them in an output is a leak."""
    return re.findall(r"[A-Za-z0-9]{4,}", password)


def libpq_escaped(value: str) -> str:
    """A key=value value written unquoted: blanks, quotes and backslashes escaped."""
    return re.sub(r"([\s'\\])", r"\\\1", value)


def libpq_quoted(value: str) -> str:
    """A key=value value written in single quotes with \\ and ' escaped."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def dsn_forms(port: int, password: str, dbname: str = "postgres", host: str = "127.0.0.1") -> list[str]:
    return [
        f"host={host} port={port} user=pwuser dbname={dbname} connect_timeout=5 password={libpq_escaped(password)}",
        f"password={libpq_quoted(password)} host={host} port={port} user=pwuser dbname={dbname} connect_timeout=5",
        f"postgresql://pwuser:{quote(password, safe='')}@{host}:{port}/{dbname}?connect_timeout=5",
    ]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    version = max(available_versions())
    with running_postgres(version, tmp_path_factory.mktemp("secrets")) as started:
        EXERCISED.add(version)
        started.psql(f"CREATE ROLE pwuser LOGIN PASSWORD {literal(PASSWORD)}; GRANT pg_monitor TO pwuser;")
        hba = started.datadir / "pg_hba.conf"
        hba.write_text("host all pwuser 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
        started.psql("SELECT pg_reload_conf()")
        yield started


def assert_no_leak(text: str, *passwords: str) -> None:
    for password in passwords:
        leaked = [piece for piece in fragments(password) if piece in text]
        assert not leaked, (leaked, text[-1500:])


def refused(args: list[str], code: int, needle: str, *passwords: str) -> None:
    done = run_advisor(*args)
    assert done.returncode == code, (done.returncode, done.stderr)
    assert done.stderr.startswith("advisor: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert needle in done.stderr, done.stderr
    assert_no_leak(done.stderr + done.stdout, *passwords)


def test_the_dsn_forms_reach_the_server_with_the_password(server: PgServer, tmp_path: Path) -> None:
    """Each form logs in (so the forms really carry the password), and nothing written shows it."""
    for number, dsn in enumerate(dsn_forms(server.port, PASSWORD)):
        out = tmp_path / f"snapshot{number}.json"
        done = run_advisor("collect", "--dsn", dsn, "-o", str(out))
        assert done.returncode in (0, 4), done.stderr
        assert_no_leak(done.stderr + out.read_text(), PASSWORD)


@pytest.mark.parametrize("form", [0, 1, 2])
def test_bad_password(server: PgServer, tmp_path: Path, form: int) -> None:
    wrong = dsn_forms(server.port, WRONG)[form]
    refused(["collect", "--dsn", wrong, "-o", str(tmp_path / "x.json")], 3, "password authentication failed",
            WRONG, PASSWORD)


def test_missing_database_bad_host_and_closed_port(server: PgServer, tmp_path: Path) -> None:
    """One DSN form each (every form is exercised by the bad-password test)."""
    out = str(tmp_path / "never.json")
    missing = dsn_forms(server.port, PASSWORD, dbname="no_such_db")[1]
    refused(["collect", "--dsn", missing, "-o", out], 3, "does not exist", PASSWORD)
    no_host = dsn_forms(server.port, PASSWORD, host="no-such-host.invalid")[2]
    refused(["collect", "--dsn", no_host, "-o", out], 3, "cannot connect to", PASSWORD)
    closed = dsn_forms(free_port(), PASSWORD)[0]
    refused(["collect", "--dsn", closed, "-o", out], 3, "cannot connect to", PASSWORD)
    assert not (tmp_path / "never.json").exists()


def test_unparseable_dsn_shows_no_piece_of_the_password(tmp_path: Path) -> None:
    # an unescaped blank: libpq stops the value there and complains about the rest by quoting it
    dsn = "host=127.0.0.1 user=pwuser password=Zz9se cretELeak7"
    refused(["collect", "--dsn", dsn, "-o", str(tmp_path / "x.json")], 3, "not valid libpq syntax", "cretELeak7")


def test_unreachable_oracle_listener(tmp_path: Path) -> None:
    for connect in (f'scott/"{PASSWORD.replace(chr(34), "")}"@127.0.0.1:{free_port()}/orclpdb',
                    f"scott/Tiger7Cat9@127.0.0.1:{free_port()}/orcl"):
        secret = connect.split("/", 1)[1].rsplit("@", 1)[0]
        refused(["collect", "--dbms", "oracle", "--dsn", connect, "-o", str(tmp_path / "o.json")], 3,
                "cannot connect to", secret)


def test_workload_and_reports_from_a_password_dsn(server: PgServer, tmp_path: Path) -> None:
    dsn = dsn_forms(server.port, PASSWORD)[0]
    work = tmp_path / "workload.json"
    done = run_advisor("collect", "--dsn", dsn, "--interval", "1", "--keep-snapshots", str(tmp_path / "snaps"),
                       "-o", str(work))
    assert done.returncode in (0, 4), done.stderr
    written = [work, tmp_path / "snaps" / "snapshot-a.json", tmp_path / "snaps" / "snapshot-b.json"]
    logs = done.stderr
    for fmt in ("json", "markdown", "html"):
        report = tmp_path / f"report.{fmt}"
        made = run_advisor("report", "--workload", str(work), "--preset", "class-7200-desktop", "--force", "--format",
                           fmt, "-o", str(report), "--scripts", str(tmp_path / "scripts"), "--min-gain", "0")
        assert made.returncode == 0, made.stderr
        written.append(report)
        logs += made.stderr
    written += sorted((tmp_path / "scripts").iterdir())
    assert_no_leak(logs + "".join(path.read_text() for path in written), PASSWORD)
