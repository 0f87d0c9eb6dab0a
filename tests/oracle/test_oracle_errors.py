"""Connection and privilege failures become one-line advisor errors (no password, a hint)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import oracledb
import pytest

from advisor.collect.context import CollectContext
from advisor.collectors.oracle import OracleCollector
from advisor.errors import AdvisorError, ConnectionFailed, ExitCode, PrivilegeMissing, Unsupported
from tests.oracle.oracle_replay import ReplayConnection, dpy_error, ora_error
from tests.oracle.oracle_scenarios import SCENARIOS

Replay = Callable[[ReplayConnection], list[dict[str, Any]]]


def failing_connect(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    def connect(**_: Any) -> None:
        raise error

    monkeypatch.setattr(oracledb, "connect", connect)


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (dpy_error(3001, feature="Native Network Encryption and Data Integrity", driver_type="thick"),
         "native network encryption"),
        (dpy_error(3015, verifier_type=0x939), "10G"),
        (dpy_error(3010), "older than 12.1"),
    ],
)
def test_thin_mode_limits_say_use_thick(monkeypatch: pytest.MonkeyPatch, error: Exception, reason: str) -> None:
    failing_connect(monkeypatch, error)
    with pytest.raises(Unsupported) as caught:
        OracleCollector().connect("scott/tiger@dbhost:1521/orcl", {})
    line = caught.value.one_line()
    assert "--thick" in line and reason in line and "\n" not in line
    assert "tiger" not in line
    assert caught.value.exit_code == ExitCode.UNSUPPORTED


@pytest.mark.parametrize(
    ("code", "text", "expected"),
    [
        (1017, "invalid username/password; logon denied", "invalid username or password"),
        (12541, "TNS:no listener", "no listener"),
        (12514, "TNS:listener does not currently know of service", "service name"),
    ],
)
def test_login_and_network_failures(monkeypatch: pytest.MonkeyPatch, code: int, text: str, expected: str) -> None:
    failing_connect(monkeypatch, ora_error(code, text))
    with pytest.raises(ConnectionFailed) as caught:
        OracleCollector().connect("advisor/Pa55word@dbhost/orcl", {"password": "Pa55word"})
    line = caught.value.one_line()
    assert expected in line and "Pa55word" not in line
    assert caught.value.exit_code == ExitCode.CONNECTION


def test_thick_loads_client_before_connecting(monkeypatch: pytest.MonkeyPatch, replay: Replay) -> None:
    order: list[str] = []
    monkeypatch.setattr(oracledb, "init_oracle_client", lambda **kw: order.append("init"))
    calls = replay(SCENARIOS["11.2"].connection(0))
    original = oracledb.connect

    def connect(**kw: Any) -> Any:
        order.append("connect")
        return original(**kw)

    monkeypatch.setattr(oracledb, "connect", connect)
    conn = OracleCollector().connect("dbhost/orcl", {"thick": True, "user": "advisor", "password": "x"})
    assert order == ["init", "connect"] and conn.module == "advisor"
    assert calls[0]["user"] == "advisor" and calls[0]["dsn"] == "dbhost/orcl"


@pytest.mark.parametrize(("query", "grant"), [("datafile", "SYS.V_$DATAFILE"), ("filestat", "SYS.GV_$FILESTAT")])
def test_missing_grant_names_the_view(query: str, grant: str) -> None:
    conn = SCENARIOS["19c"].connection(0)
    conn.errors[query] = ora_error(942, "table or view does not exist")
    with pytest.raises(PrivilegeMissing) as caught:
        OracleCollector().collect(conn, CollectContext())
    line = caught.value.one_line()
    assert f"GRANT SELECT ON {grant}" in line and "SELECT_CATALOG_ROLE" in line
    assert caught.value.exit_code == ExitCode.PRIVILEGE


def test_lost_connection_mid_collect() -> None:
    conn = SCENARIOS["12.1"].connection(0)
    conn.errors["iostat_file"] = ora_error(3113, "end-of-file on communication channel")
    with pytest.raises(ConnectionFailed, match="connection was lost"):
        OracleCollector().collect(conn, CollectContext())


def test_unknown_driver_error_is_one_line() -> None:
    conn = SCENARIOS["12.1"].connection(0)
    conn.errors["log"] = ora_error(1555, "snapshot too old: rollback segment number 9\nsecond line")
    with pytest.raises(AdvisorError) as caught:
        OracleCollector().collect(conn, CollectContext())
    assert "\n" not in caught.value.one_line() and "ORA-01555" in caught.value.one_line()
