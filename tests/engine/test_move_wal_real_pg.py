"""``move_wal.sh`` and ``move_datadir.sh`` on a real server: they finish under a pipe, keep the options.

The server is started by ``pg_ctl`` with options of its own (a port and a ``cluster_name``
given with ``-o``, so only ``postmaster.opts`` knows them); the script runs as the server's
account with its output piped into ``tail`` and must return, the server must run again on
the same port with the same ``cluster_name``, pg_wal must be a symlink into the new mount,
and WAL written after the move must land there. A plan made for another data directory is
refused before the server stops.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.demo.embedded import as_server_user, owned_dir
from advisor.engine.areas import DATA_DIRECTORY, Area
from advisor.engine.scripts.datadir import move_datadir_script
from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.wal import move_wal_script
from tests.helpers.pg import PgServer, available_versions, running_postgres

pytestmark = pytest.mark.slow


def _wal_area() -> Area:
    return Area(name="WAL", kind="wal", tablespace=None, size_bytes=1 << 24, read_iops=0.0, write_iops=10.0,
                read_mb_s=0.0, write_mb_s=0.1, syncs_per_s=10.0, random_share=None, mean_read_kb=None,
                mean_write_kb=None, files=1)


@pytest.fixture
def server() -> Iterator[tuple[PgServer, Path]]:
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries on this machine")
    work = Path(tempfile.mkdtemp(prefix="advisor-movewal-", dir="/tmp"))
    work.chmod(0o755)  # the restarted server runs as its own account, which must reach its files
    try:
        with running_postgres(max(versions), work) as pg:
            pg.stop()
            # options only postmaster.opts remembers: a lost -o would come back on port 5432, unnamed
            pg.pg_ctl("-w", "-t", "60", "-l", str(pg.log_path), "-o",
                      f"-p {pg.port} -c cluster_name=movewal_check", "start")
            yield pg, work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_piped(script: str, work: Path, pg: PgServer) -> tuple[int, str]:
    path = work / "move_wal.sh"
    path.write_text(script)
    path.chmod(0o755)
    # psql on the PATH (to ask the server), pg_ctl deliberately not: the script finds the server's own
    tools = work / "tools"
    tools.mkdir(exist_ok=True)
    psql = tools / "psql"
    if not psql.exists():
        psql.symlink_to(pg.bindir / "psql")
    env = {"PATH": f"{tools}:/usr/bin:/bin", "PGHOST": "127.0.0.1", "PGPORT": str(pg.port), "PGUSER": "postgres"}
    command = " ".join(as_server_user(["sh", str(path)])) + " 2>&1 | tail -n 5"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], stdout=subprocess.PIPE, text=True, timeout=180,
                          env=env, cwd=work)
    return done.returncode, done.stdout


def test_move_wal_returns_under_a_pipe_and_keeps_the_server_options(server: tuple[PgServer, Path]) -> None:
    pg, work = server
    mount = owned_dir(work / "mnt-wal")
    move = Move(_wal_area(), "wal", "wal1", str(mount), False)
    script = move_wal_script([move], {"data_directory": str(pg.datadir)})
    assert script is not None and "pg_ctl" in script.text
    code, out = _run_piped(script.text, work, pg)  # returns: the timeout would raise otherwise
    assert code == 0, out
    assert "the server runs again" in out, out
    assert pg.psql("SHOW cluster_name") == "movewal_check"  # same port (psql reached it) and same options
    wal = pg.datadir / "pg_wal"
    assert wal.is_symlink() and os.readlink(wal) == str(mount / "pg_wal")
    pg.psql("CREATE TABLE wal_after (v int); INSERT INTO wal_after SELECT generate_series(1, 1000)")
    pg.psql("SELECT pg_switch_wal()")
    pg.psql("INSERT INTO wal_after VALUES (0)")
    pg.psql("CHECKPOINT")
    segment = pg.psql("SELECT pg_walfile_name(pg_current_wal_flush_lsn())")
    assert segment in os.listdir(mount / "pg_wal"), "WAL written after the move lands in the new directory"
    # run again: the WAL is where the plan wants it, nothing stops
    code, out = _run_piped(script.text, work, pg)
    assert code == 0 and "already in" in out, out


def test_move_wal_refuses_a_server_on_another_data_directory(server: tuple[PgServer, Path]) -> None:
    pg, work = server
    mount = owned_dir(work / "mnt-wal")
    move = Move(_wal_area(), "wal", "wal1", str(mount), False)
    script = move_wal_script([move], {"data_directory": str(work / "elsewhere" / "data")})
    assert script is not None
    code, out = _run_piped(script.text, work, pg)
    assert code != 0 and "refused: the server runs from" in out, out
    assert pg.psql("SELECT 1") == "1", "the server still runs"
    assert not (pg.datadir / "pg_wal").is_symlink()


def test_move_datadir_copies_the_catalogs_and_keeps_the_path_the_server_knows(server: tuple[PgServer, Path]) -> None:
    pg, work = server
    pg.psql("CREATE TABLE kept AS SELECT g AS v, md5(g::text) AS t FROM generate_series(1, 2000) g")
    checksum = pg.psql("SELECT md5(string_agg(t, ',' ORDER BY v)) FROM kept")
    mount = owned_dir(work / "mnt-cold")
    area = Area(name=DATA_DIRECTORY, kind="tablespace", tablespace="pg_global", size_bytes=1 << 24, read_iops=0.1,
                write_iops=0.0, read_mb_s=0.0, write_mb_s=0.0, syncs_per_s=0.0, random_share=None,
                mean_read_kb=None, mean_write_kb=None, files=40)
    script = move_datadir_script([Move(area, "cold", "cold3", str(mount), False)],
                                 {"data_directory": str(pg.datadir)})
    assert script is not None
    code, out = _run_piped(script.text, work, pg)
    assert code == 0, out
    assert pg.datadir.is_symlink() and os.readlink(pg.datadir) == str(mount / "data")
    assert pg.psql("SHOW cluster_name") == "movewal_check"
    assert pg.psql("SELECT md5(string_agg(t, ',' ORDER BY v)) FROM kept") == checksum
    catalog = pg.psql("SELECT pg_relation_filepath('pg_class')")
    assert (mount / "data" / catalog).is_file(), "the catalogs are read from the copy"
    assert (pg.datadir.parent / "data.before-move" / "PG_VERSION").is_file(), "the old copy is kept"
