"""The IO share from counters on hand-made view rows of each PostgreSQL version's shape."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.engine.gate import gate_for_wait, not_io_bound_finding
from advisor.model import ServerInfo, Snapshot, WaitProfile
from advisor.rates.io_share import counter_share, describe, interval_wait

ON = {"track_io_timing": "on", "track_wal_io_timing": "on"}


def _snap(major: int, databases: list[dict[str, Any]], io: list[dict[str, Any]] | None = None,
          wal: dict[str, Any] | None = None, settings: dict[str, str] | None = None, at: str = "00") -> Snapshot:
    server = ServerInfo("postgres", f"{major}.1", major * 10000 + 100, "h", "h:5432", "1", "t0",
                        settings=dict(ON if settings is None else settings))
    views: dict[str, Any] = {"pg_stat_database": databases, "pg_stat_wal": [wal or {}]}
    if io is not None:
        views["pg_stat_io"] = io
    return Snapshot(server, f"2026-01-01T00:00:{at}+00:00", (), views=views)


def _db(name: str, active: float, read: float = 0.0, write: float = 0.0) -> dict[str, Any]:
    return {"datname": name, "active_time": active, "blk_read_time": read, "blk_write_time": write}


def _io(backend: str, obj: str, read: float, write: float = 0.0, fsync: float | None = None) -> dict[str, Any]:
    return {"backend_type": backend, "object": obj, "context": "normal", "read_time": read, "write_time": write,
            "extend_time": 0.0, "writeback_time": 0.0, "fsync_time": fsync}


def test_pg15_uses_blk_times_and_pg_stat_wal_summed_over_databases() -> None:
    a = _snap(15, [_db("app", 1000, 100, 10), _db("other", 0)], wal={"wal_write_time": 5.0, "wal_sync_time": 5.0})
    b = _snap(15, [_db("app", 5000, 1100, 210), _db("other", 1000, 500)],
              wal={"wal_write_time": 105.0, "wal_sync_time": 205.0})
    share, notes = counter_share(a, b)
    assert share is not None
    assert share.db_time_s == pytest.approx(5.0)  # 4 s + 1 s of active time
    assert share.parts_s == pytest.approx({"data reads": 1.5, "data writes": 0.2, "WAL write+sync": 0.3})
    assert share.share == pytest.approx(2.0 / 5.0)
    assert any("upper bound" in n for n in notes)


def test_pg16_counts_client_backends_of_pg_stat_io_only() -> None:
    a = _snap(16, [_db("app", 0)], [_io("client backend", "relation", 0), _io("autovacuum worker", "relation", 0)],
              wal={"wal_write_time": 0.0, "wal_sync_time": 0.0})
    b = _snap(16, [_db("app", 10_000, 9000)],  # blk_read_time is ignored when pg_stat_io is there
              [_io("client backend", "relation", 6000, 500, None), _io("client backend", "temp relation", 500),
               _io("autovacuum worker", "relation", 90_000)],
              wal={"wal_write_time": 0.0, "wal_sync_time": 1000.0})
    wait = interval_wait(a, b, WaitProfile(io_wait_share=0.3, samples=12, source="pg_stat_activity"))
    assert wait.source == "counters"
    assert wait.io_time_parts_s == {"data reads": 6.5, "data writes": 0.5, "WAL write+sync": 1.0}
    assert wait.io_wait_share == wait.counter_io_wait_share == pytest.approx(0.8)
    assert wait.sampled_io_wait_share == 0.3
    lines = describe(wait)
    assert "80%" in lines[0] and "30%" in lines[1] and "gate uses the share from counters" in lines[2]


def test_pg18_wal_comes_from_pg_stat_io_and_needs_wal_timing() -> None:
    rows_a = [_io("client backend", "relation", 0), _io("client backend", "wal", 0, 0, 0)]
    rows_b = [_io("client backend", "relation", 1000), _io("client backend", "wal", 0, 300, 700),
              _io("walwriter", "wal", 0, 5000, 5000)]
    a, b = _snap(18, [_db("app", 0)], rows_a), _snap(18, [_db("app", 4000)], rows_b)
    share, _ = counter_share(a, b)
    assert share is not None and share.parts_s["WAL write+sync"] == pytest.approx(1.0)
    off = {"track_io_timing": "on", "track_wal_io_timing": "off"}
    a, b = _snap(18, [_db("app", 0)], rows_a, settings=off), _snap(18, [_db("app", 4000)], rows_b, settings=off)
    share, notes = counter_share(a, b)
    assert share is not None and "WAL write+sync" not in share.parts_s and share.share == pytest.approx(0.25)
    assert any("track_wal_io_timing is off" in n and "ALTER SYSTEM" in n for n in notes)


def test_timing_off_falls_back_to_sampling_and_names_the_setting() -> None:
    off = {"track_io_timing": "off"}
    a, b = _snap(15, [_db("app", 0)], settings=off), _snap(15, [_db("app", 1000, 900)], settings=off)
    sampled = WaitProfile(io_wait_share=0.1, samples=30, source="pg_stat_activity")
    wait = interval_wait(a, b, sampled)
    assert wait.io_wait_share == 0.1 and wait.counter_io_wait_share is None and wait.source == "pg_stat_activity"
    assert any("track_io_timing is off" in n for n in wait.notes)
    gate = gate_for_wait(wait)
    assert not gate.passed and "sampled" in gate.reason and "track_io_timing" in gate.reason
    finding = not_io_bound_finding(gate)
    assert finding is not None and finding.evidence["source"] == "pg_stat_activity"
    unknown = gate_for_wait(interval_wait(a, b, WaitProfile()))
    assert unknown.passed and unknown.io_wait_share is None and "timing off" in unknown.reason


def test_idle_interval_and_capped_share() -> None:
    a, b = _snap(15, [_db("app", 100)]), _snap(15, [_db("app", 100, 50)])
    share, notes = counter_share(a, b)
    assert share is None and "no client session was active" in notes[0]
    a, b = _snap(15, [_db("app", 0)]), _snap(15, [_db("app", 1000, 3000)])
    share, notes = counter_share(a, b)
    assert share is not None and share.share == 1.0 and any("capped" in n for n in notes)


def test_oracle_profiles_pass_through() -> None:
    a = _snap(15, [])
    b = Snapshot(ServerInfo("oracle", "19.0", 190000, "h", "db", "1", "t0"), "2026-01-01T00:01:00+00:00", ())
    profile = WaitProfile(io_wait_share=0.4, db_time_s=10, io_wait_s=4, source="v$sys_time_model")
    assert interval_wait(a, b, profile) is profile
