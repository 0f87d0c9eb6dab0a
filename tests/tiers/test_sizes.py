"""PostgreSQL sizes files from a real server: the ``sizes`` query run by psql, read back, planned with.

A role without pg_monitor cannot call pg_ls_waldir, so its snapshot has no WAL size (the
collector warns). The sizes query, run by psql as a member of pg_monitor, in psql's CSV and
in its default aligned output, gives it; the plan's WAL area then has that size.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.sizes.formats import read_sizes
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer, available_versions, client_tool, running_postgres

SQL = Path(__file__).resolve().parents[2] / "sql" / "postgres" / "sizes.v14.sql"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL binaries")
    with running_postgres(max(versions), tmp_path_factory.mktemp("pg")) as pg:
        pg.psql("CREATE ROLE watcher LOGIN; GRANT pg_read_all_settings, pg_read_all_stats TO watcher;"
                "CREATE TABLE t AS SELECT g AS id, repeat('x', 200) AS pad FROM generate_series(1, 20000) g;")
        yield pg


def _psql(server: PgServer, *options: str) -> str:
    psql = str(client_tool(server.bindir, "psql"))
    done = subprocess.run([psql, "-X", "-v", "ON_ERROR_STOP=1", *options, "-f", str(SQL), "-d", server.dsn],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def workload(server: PgServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("w") / "workload.json"
    done = run_advisor("collect", "--dsn", server.dsn_for("postgres", "watcher"), "--interval", "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    wal = next(r for r in data["rates"] if r["kind"] == "wal")
    assert wal["size_bytes"] == 0, "without pg_ls_waldir the snapshot has no WAL size"
    return out


@pytest.mark.parametrize(("options", "shape"), [(("--csv",), "psql-csv"), ((), "psql-aligned")])
def test_psql_sizes_reach_the_plan(server: PgServer, workload: Path, tmp_path: Path, options: tuple[str, ...],
                                   shape: str) -> None:
    sizes = tmp_path / "sizes.txt"
    sizes.write_text(_psql(server, *options))
    table = read_sizes(sizes)
    assert table.file_format == shape
    wal_bytes = next(r.size_bytes for r in table.rows if r.kind == "wal")
    assert wal_bytes >= 16 << 20  # at least one WAL segment
    system_id = server.psql("SELECT system_identifier FROM pg_control_system()")
    assert {r.dbid for r in table.rows} == {system_id}
    done = run_advisor("plan", "--workload", str(workload), "--sizes", str(sizes), "--preset", "class-7200-desktop",
                   "--force", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    by_area = {a["name"]: a["size_bytes"] for a in report["areas"]}
    assert by_area["WAL"] == wal_bytes
    if shape == "psql-csv":  # a temp row with bytes: it reaches the temp area the role could not size
        lines = sizes.read_text().splitlines()
        temp = next(i for i, line in enumerate(lines) if ",temp,pg_default," in line)
        lines[temp] = lines[temp].rsplit(",", 1)[0] + ",123456789"
        sizes.write_text("\n".join(lines) + "\n")
        again = run_advisor("plan", "--workload", str(workload), "--sizes", str(sizes), "--preset",
                        "class-7200-desktop", "--force", "--format", "json")
        assert again.returncode == 0, again.stderr
        temp_sizes = {a["name"]: a["size_bytes"] for a in json.loads(again.stdout)["areas"] if a["kind"] == "temp"}
        assert list(temp_sizes.values()) == [123456789], temp_sizes
    assert any(w.startswith(f"sizes from {sizes}") for w in report["warnings"])


def test_a_sizes_file_of_another_cluster_is_refused(server: PgServer, workload: Path, tmp_path: Path) -> None:
    text = _psql(server, "--csv")
    system_id = server.psql("SELECT system_identifier FROM pg_control_system()")
    sizes = tmp_path / "other.csv"
    sizes.write_text(text.replace(system_id, "7000000000000000001"))
    done = run_advisor("plan", "--workload", str(workload), "--sizes", str(sizes), "--preset", "class-7200-desktop",
                   "--force")
    assert done.returncode == 6 and "refused" in done.stderr and "line 2" in done.stderr


def test_a_live_workload_plans_without_a_sizes_file(workload: Path) -> None:
    """A live snapshot carries its sizes: nothing asks for --sizes, nothing is marked assumed."""
    done = run_advisor("plan", "--workload", str(workload), "--preset", "class-7200-desktop", "--force",
                   "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["plan"] is not None and not any(a["size_assumed"] for a in report["areas"])
    assert not any("sizes" in w for w in report["warnings"])
