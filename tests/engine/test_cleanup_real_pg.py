"""postgres.sql moves quietly, and postgres_drop_old.sql drops only what the moves emptied (real server).

A database with a table but no index or materialized view in the old tablespace used to print
"no matching relations in tablespace" notices that read as failures. The drop script must
drop an emptied tablespace and stop, naming it, at one that still holds something.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.demo.embedded import owned_dir
from advisor.engine.areas import Area
from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.pg_cleanup import drop_old_tablespaces_sql
from advisor.engine.scripts.postgres import postgres_sql
from tests.helpers.pg import PgServer, available_versions, client_tool, running_postgres

pytestmark = pytest.mark.slow


def _area(tablespace: str) -> Area:
    return Area(name=tablespace, kind="tablespace", tablespace=tablespace, size_bytes=1 << 20, read_iops=1.0,
                write_iops=0.0, read_mb_s=0.1, write_mb_s=0.0, syncs_per_s=0.0, random_share=None,
                mean_read_kb=None, mean_write_kb=None, files=1, containers=("app",))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries on this machine")
    base = tmp_path_factory.mktemp("cleanup")
    with running_postgres(max(versions), base) as pg:
        pg.psql("CREATE DATABASE app")
        yield pg


def _psql_file(server: PgServer, text: str, path: Path) -> subprocess.CompletedProcess[str]:
    path.write_text(text)
    return subprocess.run([str(client_tool(server.bindir, "psql")), "-X", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                           "-p", str(server.port), "-U", "postgres", "-d", "postgres", "-f", str(path)],
                          capture_output=True, text=True, timeout=120, check=False)


def _tablespace(server: PgServer, name: str, base: Path) -> None:
    location = owned_dir(base / name)
    server.psql(f"CREATE TABLESPACE {name} LOCATION '{location}'")


def test_moves_print_no_notice_and_the_emptied_tablespace_is_dropped(server: PgServer, tmp_path: Path) -> None:
    base = Path(server.datadir).parent
    _tablespace(server, "quiet_old", base)
    server.psql("CREATE TABLE plain (v int) TABLESPACE quiet_old; INSERT INTO plain SELECT generate_series(1, 500)",
                "app")
    move = Move(_area("quiet_old"), "random-read", "hot1", str(owned_dir(base / "mnt-hot1")), True)
    owned_dir(Path(move.directory))
    done = _psql_file(server, postgres_sql([move]).text, tmp_path / "postgres.sql")
    assert done.returncode == 0, done.stderr
    assert "NOTICE" not in done.stderr and "no matching relations" not in done.stderr, done.stderr
    drop = drop_old_tablespaces_sql([move])
    assert drop is not None
    done = _psql_file(server, drop.text, tmp_path / "drop.sql")
    assert done.returncode == 0, done.stderr
    assert server.psql("SELECT count(*) FROM pg_tablespace WHERE spcname = 'quiet_old'") == "0"
    assert server.psql("SELECT count(*) FROM plain", "app") == "500"


def test_a_tablespace_that_still_holds_a_relation_is_not_dropped(server: PgServer, tmp_path: Path) -> None:
    base = Path(server.datadir).parent
    _tablespace(server, "still_used", base)
    server.psql("CREATE TABLE kept (v int) TABLESPACE still_used", "app")
    drop = drop_old_tablespaces_sql([Move(_area("still_used"), "random-read", "hot1", str(base / "x"), True)])
    assert drop is not None
    done = _psql_file(server, drop.text, tmp_path / "drop.sql")
    assert done.returncode != 0 and "still_used still holds relations in database app" in done.stderr, done.stderr
    assert server.psql("SELECT count(*) FROM pg_tablespace WHERE spcname = 'still_used'") == "1"
