"""The Oracle paths through the real CLI: collect (replayed server), workload, --statspack, --from-report."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import oracledb
import pytest
from typer.testing import CliRunner

from advisor.cli import app
from advisor.errors import ExitCode
from tests.oracle.oracle_replay import ReplayConnection, ora_error
from tests.oracle.oracle_scenarios import INTERVAL_S, SCENARIOS, STARTUP, statspack_recordings

Replay = Callable[[ReplayConnection], list[dict[str, Any]]]
FIXTURES = Path(__file__).parent / "fixtures"


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_two_collected_snapshots_give_the_workload_json(replay: Replay, tmp_path: Path) -> None:
    scenario = SCENARIOS["19c-cdb"]
    for sample, name in ((0, "a.json"), (1, "b.json")):
        replay(scenario.connection(sample))
        result = run("collect", "--dbms", "oracle", "--dsn", "c##advisor/Secr3t@dbhost/CDB1", "-o",
                     str(tmp_path / name))
        assert result.exit_code == 0, result.output
        assert "Secr3t" not in result.output
    result = run("workload", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["document"] == "workload" and document["interval_s"] == INTERVAL_S
    rates = {r["file_id"]: r for r in document["rates"]}
    assert rates["data:12:9100"]["read_iops"] == pytest.approx(100.0)
    assert rates["data:12:9100"]["container"] == "SALES"
    assert rates["temp:1:4000"]["read_latency_ms"] == pytest.approx(5.0)
    assert rates["redo:1:1"]["write_iops"] == pytest.approx(50.0)
    assert rates["archive"]["path"] == "/u06/arch"
    assert document["wait"]["io_wait_share"] == pytest.approx(0.55)


def test_restart_between_snapshots_exits_9(replay: Replay, tmp_path: Path) -> None:
    scenario = SCENARIOS["11.2"]
    replay(scenario.connection(0))
    assert run("collect", "--dbms", "oracle", "--dsn", "dbhost/orcl", "-o", str(tmp_path / "a.json")).exit_code == 0
    replay(scenario.connection(1, startup=STARTUP + dt.timedelta(days=20)))
    assert run("collect", "--dbms", "oracle", "--dsn", "dbhost/orcl", "-o", str(tmp_path / "b.json")).exit_code == 0
    result = run("workload", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert result.exit_code == int(ExitCode.RESET)
    assert "start time changed" in result.stderr and "Traceback" not in result.output


def test_statspack_range_from_the_cli(replay: Replay, tmp_path: Path) -> None:
    scenario = SCENARIOS["11.2"]
    conn = ReplayConnection(scenario.version, statspack_recordings(scenario))
    replay(conn)
    out = tmp_path / "w.json"
    result = run("collect", "--dbms", "oracle", "--dsn", "dbhost/orcl", "--statspack", "10:11", "-o", str(out))
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["source"] == "statspack" and document["interval_s"] == 3600
    assert not [s for s in conn.statements if "dba_hist" in s.sql.lower()]


def test_bad_password_is_one_line_exit_3(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def refuse(**_: Any) -> None:
        raise ora_error(1017, "invalid username/password; logon denied")

    monkeypatch.setattr(oracledb, "connect", refuse)
    result = run("collect", "--dbms", "oracle", "--dsn", "advisor/Hunter2@dbhost/orcl", "-o", str(tmp_path / "x.json"))
    assert result.exit_code == int(ExitCode.CONNECTION)
    assert result.stderr.count("\n") == 1 and "invalid username or password" in result.stderr
    assert "Hunter2" not in result.output and not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("name", ["awr_12.2.0.1_cdb.html", "statspack_11.2.0.4.txt", "awr_11.2.0.4.txt"])
def test_from_report_then_workload(tmp_path: Path, name: str) -> None:
    out = tmp_path / "w.json"
    result = run("collect", "--from-report", str(FIXTURES / name), "-o", str(out))
    assert result.exit_code == 0, result.output
    shown = run("workload", str(out), "--format", "json")
    assert shown.exit_code == 0
    document = json.loads(shown.stdout)
    kinds = {r["kind"] for r in document["rates"]}
    assert {"data", "temp", "undo", "redo"} <= kinds
    assert any(r["read_latency_ms"] == pytest.approx(8.0) and r["read_iops"] == pytest.approx(100.0)
               for r in document["rates"])


def test_from_report_refuses_other_files(tmp_path: Path) -> None:
    other = tmp_path / "snapshot.json"
    other.write_text('{"document": "snapshot"}')
    result = run("collect", "--from-report", str(other))
    assert result.exit_code == int(ExitCode.BAD_INPUT) and "Traceback" not in result.output


def test_collect_interval_uses_the_server_clock(replay: Replay, tmp_path: Path) -> None:
    """`collect --interval`: two samples on one session; rates use the server's own timestamps."""
    scenario = SCENARIOS["12.1"]
    before, after = scenario.connection(0).recordings, scenario.connection(1).recordings
    conn = ReplayConnection(scenario.version, {})

    def serve(marker: str) -> Any:
        def rows(_: Any) -> Any:
            taken = sum(1 for s in conn.statements if s.marker == "instance")
            table = (before if taken <= 1 else after)[marker]
            return table(_) if callable(table) else table
        return rows

    conn.recordings = {marker: serve(marker) for marker in before}
    replay(conn)
    out = tmp_path / "w.json"
    result = run("collect", "--dbms", "oracle", "--dsn", "dbhost/orcl", "--interval", "0.2", "-o", str(out))
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["interval_s"] == INTERVAL_S  # server clock, not the 0.2 s the client slept
    rates = {r["file_id"]: r for r in document["rates"]}
    assert rates["data:4:9100"]["read_iops"] == pytest.approx(100.0)
    assert rates["data:4:9100"]["read_latency_ms"] == pytest.approx(8.0)
    assert rates["redo:1:1"]["write_iops"] == pytest.approx(50.0)
