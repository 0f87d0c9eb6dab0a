"""The collector against real servers: identity, paths, kinds, shared catalogs, views, JSON."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from advisor.collectors.postgres import PostgresCollector
from advisor.model import load_snapshot
from tests.helpers.cli import run_advisor, start_advisor
from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import collect_context

pytestmark = pytest.mark.pg


def test_snapshot_content(shared_server: PgServer) -> None:
    context = collect_context(shared_server)
    assert context.server is not None
    ident = shared_server.psql("SELECT system_identifier FROM pg_control_system()")
    assert context.server.identity == ident
    assert context.server.major == shared_server.version
    assert context.server.settings["data_directory"] == str(shared_server.datadir)
    by_name = {(f.container, f.name): f for f in context.files}

    hot = by_name[("postgres", "public.hot")]
    fast_dir = shared_server.psql("SELECT pg_tablespace_location(oid) FROM pg_tablespace WHERE spcname='fast'")
    assert hot.tablespace == "fast" and hot.kind == "data"
    assert hot.path.startswith(fast_dir + "/") and os.path.isfile(hot.path)
    assert hot.size_bytes == os.path.getsize(hot.path) and hot.writes is None and hot.read_time_ms is None

    index = by_name[("postgres", "public.hot_body")]
    assert index.kind == "index" and index.tablespace == "slow"  # its own tablespace, not the table's
    toast = [f for f in context.files if f.container == "postgres" and f.kind == "toast" and f.tablespace == "fast"]
    assert toast and all(os.path.isfile(f.path) for f in toast)
    counter = by_name[("postgres", "public.counter")]  # a sequence: no statement moves it alone
    assert counter.kind == "sequence" and counter.tablespace == "pg_default" and os.path.isfile(counter.path)
    other = by_name[("app2", "public.other")]
    assert other.tablespace == "slow" and other.file_id.startswith("app2/")

    shared = [f for f in context.files if f.tablespace == "pg_global"]
    assert shared and all(f.container == "global" and f.file_id.startswith("global/") for f in shared)
    ids = [f.file_id for f in context.files]
    assert len(ids) == len(set(ids)), "a file counted twice (shared catalogs must be counted once)"
    assert all(os.path.isfile(f.path) for f in shared)

    wal = [f for f in context.files if f.kind == "wal"]
    assert len(wal) == 1 and wal[0].path == os.path.realpath(shared_server.datadir / "pg_wal")
    assert wal[0].writes is not None and wal[0].writes > 0 and wal[0].write_time_ms is None  # timing off
    assert {f.file_id for f in context.files if f.kind == "temp"} == {"temp/pg_default"}
    assert ("pg_stat_io" in context.views) == (shared_server.version >= 16)
    assert {"pg_stat_wal", "pg_stat_database", "pg_stat_archiver", "pg_stat_checkpointer"} <= set(context.views)
    assert context.wait.samples == 1 and context.wait.source == "pg_stat_activity"
    assert context.warnings == []


def test_cli_snapshot_round_trips(shared_server: PgServer, tmp_path: Path) -> None:
    out = tmp_path / "snap.json"
    done = run_advisor("collect", "--dsn", shared_server.dsn, "-o", str(out))
    assert done.returncode == 0, done.stderr
    snapshot = load_snapshot(out)
    assert snapshot.server.dbms == "postgres" and snapshot.server.major == shared_server.version
    runs = {r.name: r.status for r in snapshot.runs}
    assert runs["postgres"] == "ok" and "host" in runs
    assert any(f.name == "public.hot" for f in snapshot.files)


def test_cli_interval_writes_workload_and_snapshots(shared_server: PgServer, tmp_path: Path) -> None:
    out, keep = tmp_path / "workload.json", tmp_path / "keep"
    done = run_advisor("collect", "--dsn", shared_server.dsn, "--interval", "1.2", "-o", str(out),
                       "--keep-snapshots", str(keep))
    assert done.returncode == 0, done.stderr
    from advisor.model import load_workload

    workload = load_workload(out)
    a, b = load_snapshot(keep / "snapshot-a.json"), load_snapshot(keep / "snapshot-b.json")
    assert workload.started_at == a.taken_at and workload.ended_at == b.taken_at
    assert 1.0 < workload.interval_s < 30 and workload.wait.samples >= 3
    assert {r.file_id for r in workload.rates} == {f.file_id for f in a.files} & {f.file_id for f in b.files}
    shown = run_advisor("workload", str(out), "--top", "0")
    assert shown.returncode == 0 and "Per tablespace" in shown.stdout and "public.hot" in shown.stdout


def test_kept_snapshot_a_appears_before_the_wait_ends(shared_server: PgServer, tmp_path: Path) -> None:
    # the typed signal a program starting the load waits for (the demo does): not a progress line
    out, keep = tmp_path / "workload.json", tmp_path / "keep"
    proc = start_advisor("collect", "--dsn", shared_server.dsn, "--interval", "4", "-o", str(out),
                         "--keep-snapshots", str(keep), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not (keep / "snapshot-a.json").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the collect was over before snapshot A was kept"
        assert not (keep / "snapshot-b.json").exists() and not out.exists()
        first = load_snapshot(keep / "snapshot-a.json")
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    from advisor.model import load_workload

    assert load_workload(out).started_at == first.taken_at == load_snapshot(keep / "snapshot-a.json").taken_at


def test_session_is_read_only_and_named(shared_server: PgServer) -> None:
    import psycopg

    collector = PostgresCollector()
    session = collector.connect(shared_server.dsn, {"statement_timeout_s": 7})
    try:
        conn = session.conn
        assert conn.autocommit
        show = {name: conn.execute(f"SHOW {name}".encode()).fetchone()[0]  # type: ignore[index]
                for name in ("statement_timeout", "default_transaction_read_only", "application_name")}
        assert show == {"statement_timeout": "7s", "default_transaction_read_only": "on", "application_name": "advisor"}
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute(b"CREATE TABLE must_not_exist (id int)")
    finally:
        collector.close(session)


def test_dsn_from_pg_environment(shared_server: PgServer, tmp_path: Path) -> None:
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("PG")}
    env.update(PGHOST="127.0.0.1", PGPORT=str(shared_server.port), PGUSER="postgres", PGDATABASE="app2")
    out = tmp_path / "snap.json"
    done = run_advisor("collect", "-o", str(out), env=env)
    assert done.returncode == 0, done.stderr
    assert any(f.container == "app2" and f.name == "public.other" for f in load_snapshot(out).files)


def test_failing_host_plugin_gives_partial_output(shared_server: PgServer, tmp_path: Path) -> None:
    """A third-party host plugin that raises: the snapshot is written, the run is failed, exit 4."""
    site = tmp_path / "site"
    dist = site / "brokenhost-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: brokenhost\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[advisor.collectors]\naaa-broken-host = brokenhost:Broken\n")
    (site / "brokenhost.py").write_text(
        "class Broken:\n"
        "    name = 'aaa-broken-host'\n"
        "    dbms = 'host'\n"
        "    def collect(self, conn, context):\n"
        "        raise OSError('cannot read /sys/block')\n"
    )
    env = {"PYTHONPATH": str(site)}
    out = tmp_path / "snap.json"
    done = run_advisor("collect", "--dsn", shared_server.dsn, "-o", str(out), env=env)
    assert done.returncode == 4, done.stderr
    assert "collector aaa-broken-host failed: OSError: cannot read /sys/block" in done.stderr
    runs = {r.name: r for r in load_snapshot(out).runs}
    assert runs["postgres"].status == "ok" and runs["aaa-broken-host"].status == "failed"
    assert runs["host"].status == "ok", "the built-in host collector still ran"


def test_wal_symlink_is_resolved(tmp_path: Path) -> None:
    import shutil

    from tests.helpers.pg import running_postgres

    with running_postgres(18, tmp_path) as server:
        server.stop()
        wal_home = tmp_path / "wal-disk" / "pg_wal"
        wal_home.parent.mkdir()
        shutil.move(str(server.datadir / "pg_wal"), str(wal_home))
        os.chown(wal_home.parent, wal_home.stat().st_uid, wal_home.stat().st_gid)
        (server.datadir / "pg_wal").symlink_to(wal_home)
        server.start()
        context = collect_context(server)
    (wal,) = [f for f in context.files if f.kind == "wal"]
    assert wal.path == str(wal_home) and wal.size_bytes >= 16 << 20


def test_cli_interval_samples_the_temp_directorys_high_water_mark(shared_server: PgServer, tmp_path: Path) -> None:
    """A sort spills to a temp file that lives for two seconds of the interval and is gone at its end."""
    from advisor.model import load_workload

    out = tmp_path / "workload.json"
    collect = start_advisor("collect", "--dsn", shared_server.dsn, "--interval", "4", "-o", str(out))
    try:
        time.sleep(1.0)
        shared_server.psql("SET work_mem = '64kB'; BEGIN; DECLARE spill CURSOR FOR SELECT g, md5(g::text) FROM "
                           "generate_series(1, 300000) g ORDER BY 2; FETCH 1 FROM spill; SELECT pg_sleep(2); COMMIT;")
    finally:
        _, err = collect.communicate(timeout=120)
    assert collect.returncode == 0, err
    workload = load_workload(out)
    temp = next(r for r in workload.rates if r.file_id == "temp/pg_default")
    mark = workload.temp_high_water_bytes.get(temp.path)
    assert mark is not None and mark >= 1 << 20, workload.temp_high_water_bytes
    assert not any(Path(temp.path).glob("pgsql_tmp*"))  # gone at the end: only the mark saw them
