"""Oracle: an archive destination or parameter that carries user/password is stored masked.

Replayed V$ rows in the documented shapes; LOG_ARCHIVE_DEST_1 is written as a connect
string with a password (as a DBA may type one), and the FRA parameter too. The snapshot
keeps the rest of the string and ``***`` where the password was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from advisor.collect.context import CollectContext, build_snapshot
from advisor.collect.registry import run_isolated
from advisor.collectors.oracle import OracleCollector
from advisor.model.jsonio import encode
from tests.oracle.oracle_replay import ReplayConnection
from tests.oracle.oracle_scenarios import SCENARIOS, recordings

Replay = Callable[[ReplayConnection], list[dict[str, Any]]]


def test_destination_and_parameter_passwords_never_reach_the_snapshot(replay: Replay) -> None:
    scenario = SCENARIOS["19c"]
    rows = recordings(scenario, 0)
    rows["archive_dest"][0]["DESTINATION"] = "arch/Or9Leak1@//backup:1521/arch"
    for row in rows["parameter"]:
        if row["NAME"] == "db_recovery_file_dest":
            row["VALUE"] = "rman/\"Or9 Leak2\"@fra"
    conn = ReplayConnection(scenario.version_full or scenario.version, rows)
    replay(conn)
    collector = OracleCollector()
    opened = collector.connect("dbhost/orclpdb", {"user": "advisor", "password": "s3cret"})
    context = CollectContext()
    runs = [run_isolated(collector.name, lambda: collector.collect(opened, context))]
    collector.close(opened)
    assert [r.status for r in runs] == ["ok"], runs
    snapshot = build_snapshot(context, runs)
    raw = encode(snapshot).decode()
    assert "Or9Leak1" not in raw and "Leak2" not in raw
    archive = next(f for f in snapshot.files if f.file_id == "archive")
    assert archive.path == "arch/***@//backup:1521/arch"
    assert snapshot.server.settings["db_recovery_file_dest"] == "rman/***@fra"
