"""Generated PostgreSQL scripts run on a real server: they do what they say with hostile names.

``postgres.sql`` sets ``temp_tablespaces``, then a sort that spills must write its temp file
in the new tablespace (the server logs each temp file's path with ``log_temp_files = 0``).
``postgres_repack.sh`` runs the real pg_repack (Debian's postgresql-15-repack) and the tables
must end up in the new tablespace. Names (database, schema, table, tablespace) hold quotes,
spaces, semicolons, ``=`` and upper case.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlparse
from psycopg.conninfo import make_conninfo

from advisor.collectors.postgres.files import relation_kind
from advisor.demo.embedded import owned_dir
from advisor.engine.areas import Area, Relation
from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.postgres import new_tablespace_name, postgres_sql, repack_script
from advisor.engine.scripts.quoting import ident, identifier_list, literal
from tests.helpers.pg import PgServer, available_versions, client_tool, running_postgres

pytestmark = pytest.mark.slow

REPACK = Path("/usr/lib/postgresql/15/bin/pg_repack")
ODD_TEMP = "Odd \"Temp' x;y"
ODD_SPACE = "old \"ts' a;b"
ODD_TABLE = "tab \"a' b;c"
ODD_SCHEMA = "Sales 'Q\";"
ODD_DB = "app \"x' y=z"
OLD_NAME_IN_SCRIPTS = 'temp_tablespaces = \'"'


def _area(name: str, kind: str, tablespace: str, relations: tuple[Relation, ...] = ()) -> Area:
    return Area(name=name, kind=kind, tablespace=tablespace, size_bytes=1 << 20, read_iops=1.0,  # type: ignore[arg-type]
                write_iops=1.0, read_mb_s=0.1, write_mb_s=0.1, syncs_per_s=0.0, random_share=None,
                mean_read_kb=None, mean_write_kb=None, files=1, containers=("app",), relations=relations)


@pytest.fixture(scope="module")
def pg15(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    if 15 not in available_versions():
        pytest.skip("PostgreSQL 15 (Debian) is not installed")
    # archive_mode needs a restart; with no archive_command yet, segments just wait
    with running_postgres(15, tmp_path_factory.mktemp("scripts"), settings={"archive_mode": "on"}) as server:
        server.psql("CREATE DATABASE app")
        yield server


def _psql(server: PgServer, sql: str, dbname: str) -> str:
    """psql on any database name (the helper's DSN does not quote names with blanks)."""
    conninfo = make_conninfo(host="127.0.0.1", port=server.port, user="postgres", dbname=dbname)
    done = subprocess.run([str(client_tool(server.bindir, "psql")), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                           "-d", conninfo], input=sql, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _mount(server: PgServer, name: str) -> str:
    return str(owned_dir(server.datadir.parent / name))


def _prepare_directories(moves: list[Move]) -> None:
    for move in moves:
        owned_dir(Path(move.directory))


def _spilled_temp_files(server: PgServer) -> list[str]:
    """Paths (relative to the data directory) of the temp files a spilling sort writes now."""
    log_start = server.log_path.stat().st_size
    # a fresh session (it sees the reloaded setting), a sort far larger than work_mem: it spills
    server.psql("SET work_mem = '64kB'; SET log_temp_files = 0; "
                "SELECT count(*) FROM (SELECT md5(g::text) FROM generate_series(1, 50000) g ORDER BY 1) s;", "app")
    with server.log_path.open("rb") as log:
        log.seek(log_start)
        logged = log.read().decode("utf-8", "replace")
    paths = re.findall(r'temporary file: path "([^"]+)"', logged)
    assert paths, logged[-2000:]
    return paths


def _oid(server: PgServer, tablespace: str) -> str:
    oid = server.psql(f"SELECT oid FROM pg_tablespace WHERE spcname = {literal(tablespace)}")
    assert oid, tablespace
    return oid


def test_temp_tablespaces_setting_sends_spilled_sorts_to_the_new_tablespaces(pg15: PgServer) -> None:
    moves = [Move(_area(ODD_TEMP, "temp", ODD_TEMP), "temp", "temp1", _mount(pg15, "mnt-temp1"), False),
             Move(_area("temp", "temp", "pg_default"), "temp", "temp2", _mount(pg15, "mnt-temp2"), False)]
    _prepare_directories(moves)
    script = postgres_sql(moves).text
    assert OLD_NAME_IN_SCRIPTS not in script
    pg15.psql(script)
    new_names = [new_tablespace_name(m) for m in moves]
    assert pg15.psql("SHOW temp_tablespaces") == ", ".join(new_names)  # two elements, stored unquoted
    oids = {_oid(pg15, name) for name in new_names}
    paths = _spilled_temp_files(pg15)
    assert all(p.startswith("pg_tblspc/") and p.split("/")[1] in oids for p in paths), paths


def test_archive_command_archives_into_an_oddly_named_directory(pg15: PgServer) -> None:
    """The command is a shell line inside a SQL literal, expanded by the server (%p %f %%) first."""
    mount = _mount(pg15, "mnt it's 100%p $(touch pwned)")
    move = Move(_area("archive", "archive", "pg_default"), "archive", "archive4", mount, False)
    _prepare_directories([move])
    pg15.psql(postgres_sql([move]).text)
    pg15.psql("CREATE TABLE IF NOT EXISTS wal_maker (v int); INSERT INTO wal_maker VALUES (1); SELECT pg_switch_wal();")
    deadline = time.monotonic() + 60
    archived: list[str] = []
    while time.monotonic() < deadline and not archived:
        time.sleep(0.2)
        archived = sorted(os.listdir(move.directory))
    failed = pg15.psql("SELECT failed_count FROM pg_stat_archiver")
    assert archived and all(re.fullmatch(r"[0-9A-F]{24}", name) for name in archived), (archived, failed)
    assert failed == "0" and not (Path(pg15.datadir) / "pwned").exists()


def test_identifier_list_names_an_oddly_named_temp_tablespace(pg15: PgServer) -> None:
    location = _mount(pg15, "odd-temp")
    pg15.psql(f"CREATE TABLESPACE {ident(ODD_TEMP)} LOCATION {literal(location)}")
    pg15.psql(f"ALTER SYSTEM SET temp_tablespaces = {identifier_list([ODD_TEMP])}; SELECT pg_reload_conf();")
    try:
        assert pg15.psql("SHOW temp_tablespaces") == ident(ODD_TEMP)  # one element: the name itself
        oid = _oid(pg15, ODD_TEMP)
        paths = _spilled_temp_files(pg15)
        assert all(p.startswith(f"pg_tblspc/{oid}/") for p in paths), paths
    finally:
        pg15.psql("ALTER SYSTEM RESET temp_tablespaces; SELECT pg_reload_conf();")


@pytest.mark.skipif(not REPACK.is_file(), reason="pg_repack for PostgreSQL 15 is not installed")
def test_repack_script_moves_oddly_named_tables_with_the_real_pg_repack(pg15: PgServer, tmp_path: Path) -> None:
    old_location = _mount(pg15, "old-ts")
    pg15.psql(f"CREATE TABLESPACE {ident(ODD_SPACE)} LOCATION {literal(old_location)}")
    pg15.psql(f"CREATE DATABASE {ident(ODD_DB)}")
    _psql(pg15, f"CREATE EXTENSION pg_repack; CREATE SCHEMA {ident(ODD_SCHEMA)};"
              f"CREATE TABLE public.{ident(ODD_TABLE)} (id int PRIMARY KEY, v text) TABLESPACE {ident(ODD_SPACE)};"
              f"CREATE TABLE {ident(ODD_SCHEMA)}.\"Q1 Data\" (id int PRIMARY KEY) TABLESPACE {ident(ODD_SPACE)};"
              f"INSERT INTO public.{ident(ODD_TABLE)} SELECT g, 'x' FROM generate_series(1, 100) g;", ODD_DB)
    relations = (Relation(ODD_DB, f"public.{ODD_TABLE}", "data"), Relation(ODD_DB, f"{ODD_SCHEMA}.Q1 Data", "data"))
    move = Move(_area(ODD_SPACE, "tablespace", ODD_SPACE, relations), "data", "hot1",
                _mount(pg15, "mnt-hot1"), True)
    _prepare_directories([move])
    new = new_tablespace_name(move)
    pg15.psql(f"CREATE TABLESPACE {ident(new)} LOCATION {literal(move.directory)}")
    script = repack_script([move])
    assert script is not None
    path = tmp_path / "postgres_repack.sh"
    path.write_text(script.text)
    env = {**os.environ, "PGHOST": "127.0.0.1", "PGPORT": str(pg15.port), "PGUSER": "postgres",
           "PATH": f"{REPACK.parent}:{os.environ.get('PATH', '')}"}
    done = subprocess.run(["sh", str(path)], capture_output=True, text=True, timeout=300, env=env)
    assert "ERROR" not in done.stderr, done.stderr
    placed = _psql(
        pg15, "SELECT c.relname || '|' || t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('public', "
        f"{literal(ODD_SCHEMA)}) AND c.relkind IN ('r', 'i') ORDER BY 1", ODD_DB)
    rows = placed.splitlines()
    expected = sorted([f"{ODD_TABLE}|{new}", f"{ODD_TABLE}_pkey|{new}", f"Q1 Data|{new}", f"Q1 Data_pkey|{new}"])
    assert sorted(rows) == expected, (rows, done.stdout, done.stderr)


def test_oracle_script_literals_and_names_read_back_on_a_real_parser(pg15: PgServer) -> None:
    """Oracle quotes literals and identifiers as standard SQL does: PostgreSQL reads them back exactly."""
    from tests.engine.hostile_plan import EVIL, hostile_plan, script_named, sqlplus_statements

    plan = hostile_plan("oracle", 110204)
    statements = sqlplus_statements(script_named(plan, "oracle.sql").text)
    literals = [t.value for s in statements for t in s.flatten() if t.ttype in sqlparse.tokens.String.Single]
    names = sorted({t.value for s in statements for t in s.flatten() if t.value.startswith('"')})
    assert literals and names
    read = pg15.psql("SELECT " + ", ".join(f"{lit} AS c{n}" for n, lit in enumerate(literals))).split("|")
    assert "/db/it's evil/f0" in read
    assert [literal(value) for value in read] == literals  # the parser's reading, quoted again, is the token
    columns = json.loads(pg15.psql("SELECT row_to_json(r) FROM (SELECT " + ", ".join(f"1 AS {n}" for n in names)
                                   + ") r"))
    assert EVIL in columns and sorted(ident(name) for name in columns) == names


def test_sequences_are_left_where_postgres_keeps_them_and_said_so(pg15: PgServer) -> None:
    """A sequence lives in its database's default tablespace and no statement moves it alone
    (SET TABLESPACE refuses it, pg_repack takes tables): the scripts move the table, leave the
    sequence, say why, and run on the server without an error."""
    pg15.psql("CREATE DATABASE seqs")
    _psql(pg15, "CREATE TABLE orders (id serial PRIMARY KEY, v text); INSERT INTO orders (v) VALUES ('x');", "seqs")
    catalog = _psql(pg15, "SELECT n.nspname || '.' || c.relname || '|' || c.relkind::text FROM pg_class c "
                          "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'", "seqs")
    relations = tuple(Relation("seqs", name, relation_kind(relkind, False))
                      for name, relkind in (line.split("|") for line in catalog.splitlines()))
    assert Relation("seqs", "public.orders_id_seq", "sequence") in relations
    area = Area(name="pg_default", kind="tablespace", tablespace="pg_default", size_bytes=1 << 20, read_iops=1.0,
                write_iops=1.0, read_mb_s=0.1, write_mb_s=0.1, syncs_per_s=0.0, random_share=None,
                mean_read_kb=None, mean_write_kb=None, files=len(relations), containers=("seqs",),
                relations=relations)
    move = Move(area, "data", "seq1", _mount(pg15, "mnt-seq1"), True)
    _prepare_directories([move])
    sql = postgres_sql([move]).text
    assert "-- its sequences stay in pg_default: no statement moves a sequence alone" in sql
    _psql(pg15, sql, "seqs")  # ON_ERROR_STOP: every statement runs
    placed = _psql(pg15, "SELECT c.relname || '|' || COALESCE(t.spcname, 'default') FROM pg_class c "
                         "LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace "
                         "WHERE c.relname IN ('orders', 'orders_pkey', 'orders_id_seq') ORDER BY 1", "seqs")
    new = new_tablespace_name(move)
    assert placed.splitlines() == ["orders_id_seq|default", f"orders_pkey|{new}", f"orders|{new}"]
    repack = repack_script([move])
    assert repack is not None and "orders_id_seq" not in repack.text and '"public"."orders"' in repack.text


def test_postgres_sql_run_once_with_psql_moves_the_tables_of_every_database(pg15: PgServer, tmp_path: Path) -> None:
    """One tablespace holds tables of two databases (one with a hostile name); the plan's file,
    run once as the docs say (``psql -f postgres.sql`` from database ``postgres``), moves both:
    each database's statements follow a ``\\connect`` to it, which keeps psql's host and port."""
    old = "two dbs 'old\""
    pg15.psql(f"CREATE TABLESPACE {ident(old)} LOCATION {literal(_mount(pg15, 'mnt-two-old'))}")
    odd_db = "Two 'dbs\" a=b"
    for db in ("twoa", odd_db):
        pg15.psql(f"CREATE DATABASE {ident(db)}")
        _psql(pg15, f"CREATE TABLE t (id int PRIMARY KEY USING INDEX TABLESPACE {ident(old)}) TABLESPACE {ident(old)}",
              db)
    area = Area(name=old, kind="tablespace", tablespace=old, size_bytes=1 << 20, read_iops=1.0, write_iops=1.0,
                read_mb_s=0.1, write_mb_s=0.1, syncs_per_s=0.0, random_share=None, mean_read_kb=None,
                mean_write_kb=None, files=2, containers=("twoa", odd_db),
                relations=(Relation("twoa", "public.t", "data"), Relation(odd_db, "public.t", "data")))
    move = Move(area, "data", "two1", _mount(pg15, "mnt-two1"), True)
    _prepare_directories([move])
    path = tmp_path / "postgres.sql"
    path.write_text(postgres_sql([move]).text)
    conninfo = make_conninfo(host="127.0.0.1", port=pg15.port, user="postgres", dbname="postgres")
    done = subprocess.run([str(client_tool(pg15.bindir, "psql")), "-X", "-q", "-v", "ON_ERROR_STOP=1",
                           "-d", conninfo, "-f", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    new = new_tablespace_name(move)
    for db in ("twoa", odd_db):
        placed = _psql(pg15, "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace "
                             "WHERE c.relname IN ('t', 't_pkey') ORDER BY c.relname", db)
        assert placed.splitlines() == [new, new], (db, placed)


def test_move_wal_checks_its_target_before_it_stops_the_server(pg15: PgServer, tmp_path: Path) -> None:
    """A target the server's account cannot write used to fail after ``pg_ctl stop``: the server stayed down."""
    from advisor.demo.embedded import as_server_user
    from advisor.engine.scripts.postgres import move_wal_script

    locked = tmp_path / "locked-mount"
    locked.mkdir(mode=0o755)  # root's: the server's account cannot create pg_wal under it
    move = Move(_area("WAL", "wal", "pg_default"), "wal", "wal1", str(locked), False)
    script = move_wal_script([move], {"data_directory": str(pg15.datadir)})
    assert script is not None
    path = tmp_path / "move_wal.sh"
    path.write_text(script.text)
    path.chmod(0o755)
    env = {**os.environ, "PATH": f"{pg15.bindir}:{os.environ.get('PATH', '')}", "PGHOST": "127.0.0.1",
           "PGPORT": str(pg15.port), "PGUSER": "postgres"}
    done = subprocess.run(as_server_user(["sh", str(path)]), capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode != 0 and "cannot write" in done.stderr, done.stderr
    assert pg15.psql("SELECT 1") == "1", "the server still runs"
    assert not (Path(pg15.datadir) / "pg_wal").is_symlink()
