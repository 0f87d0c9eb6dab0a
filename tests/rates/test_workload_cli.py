"""CLI contract of workload, sql, collectors and collect --from-report, without a server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from advisor.model import FileIO, ServerInfo, Snapshot, save
from tests.helpers.cli import refused, run_advisor


def one_line_error(done: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    refused(done, code, needle)


def _snapshot(path: Path, at: str, reads: int) -> Path:
    server = ServerInfo("postgres", "18.1", 180001, "db", "db:5432", "1", "2026-01-01T00:00:00+00:00")
    files = (FileIO("app/1", "/d/1", "data", "fast", "app", 8192, reads, None, reads * 8192, None, name="public.t"),
             FileIO("wal", "/d/pg_wal", "wal", "pg_wal", "", 0, 0, 10, 0, 81920))
    save(Snapshot(server=server, taken_at=at, files=files), path)
    return path


def test_workload_json_and_terminal(tmp_path: Path) -> None:
    a = _snapshot(tmp_path / "a.json", "2026-01-02T00:00:00+00:00", 100)
    b = _snapshot(tmp_path / "b.json", "2026-01-02T00:00:04+00:00", 500)
    done = run_advisor("workload", str(a), str(b), "--format", "json")
    assert done.returncode == 0, done.stderr
    rates = {r["file_id"]: r for r in json.loads(done.stdout)["rates"]}
    assert rates["app/1"]["read_iops"] == 100.0 and rates["app/1"]["write_iops"] is None
    shown = run_advisor("workload", str(a), str(b))
    assert shown.returncode == 0 and "public.t" in shown.stdout and "100.0" in shown.stdout
    saved = tmp_path / "w.json"
    assert run_advisor("workload", str(a), str(b), "-o", str(saved), "--format", "json").returncode == 0
    assert run_advisor("workload", str(saved)).returncode == 0


def test_workload_bad_inputs(tmp_path: Path) -> None:
    a = _snapshot(tmp_path / "a.json", "2026-01-02T00:00:00+00:00", 100)
    b = _snapshot(tmp_path / "b.json", "2026-01-02T00:00:04+00:00", 500)
    one_line_error(run_advisor("workload", str(b), str(a)), 6, "not later than")
    truncated = tmp_path / "t.json"
    truncated.write_text(a.read_text()[:200])
    one_line_error(run_advisor("workload", str(a), str(truncated)), 6, "t.json")
    one_line_error(run_advisor("workload", str(a), str(tmp_path / "missing.json")), 6, "missing.json")
    one_line_error(run_advisor("workload", str(a), str(b), str(a)), 6, "two snapshots or one workload")
    one_line_error(run_advisor("workload", str(a), str(b), "--format", "markdown"), 6, "terminal or json")
    one_line_error(run_advisor("workload", str(a), str(b), "--sort", "speed"), 6, "--sort")


def test_from_report_refuses_unknown_files(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("just some notes\n")
    out = tmp_path / "w.json"
    one_line_error(run_advisor("collect", "--from-report", str(junk), "-o", str(out)), 6, "not a report")
    assert not out.exists()


def test_sql_and_collectors_commands() -> None:
    listed = run_advisor("sql", "list", "--dbms", "postgres")
    assert listed.returncode == 0 and "relations" in listed.stdout
    assert any(line.split()[1:] == ["io", "16+,", "18+"] for line in listed.stdout.splitlines())
    shown = run_advisor("sql", "show", "io", "--dbms", "postgres", "--version", "17")
    assert shown.returncode == 0 and "io.v16.sql" in shown.stdout and "/* advisor:io */" in shown.stdout
    one_line_error(run_advisor("sql", "show", "io", "--dbms", "postgres", "--version", "15"), 7,
                               "io needs postgres >= 16")
    one_line_error(run_advisor("sql", "show", "nope", "--dbms", "postgres"), 6, "no postgres query named 'nope'")
    plugins = {p["name"]: p for p in json.loads(run_advisor("collectors", "--format", "json").stdout)}
    assert plugins["postgres"]["status"] == "ok" and plugins["postgres"]["dbms"] == "postgres"
    assert plugins["postgres"]["target"] == "advisor.collectors.postgres:PostgresCollector"
    assert plugins["oracle"]["capabilities"] == ["collect", "connect", "history"]


def test_collect_oracle_unreachable_goes_through_the_plugin(tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    done = run_advisor("collect", "--dbms", "oracle", "--dsn", "scott/tiger@127.0.0.1:1/orcl", "-o", str(out))
    one_line_error(done, 3, "scott/***@127.0.0.1:1/orcl")
    assert "tiger" not in done.stderr and not out.exists()
    one_line_error(run_advisor("collect", "--keep-snapshots", str(tmp_path)), 6, "--keep-snapshots needs --interval")
