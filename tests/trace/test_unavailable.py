"""Without tracefs (or the right to use it) the collect says why in a line and goes on without a trace."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.collect.trace import IntervalTrace
from advisor.model import Device, HostLayout, Location, Snapshot
from advisor.storage import blocktrace
from tests.helpers.workloads import server


def snapshot(disk: str) -> Snapshot:
    location = Location(path="/db/f", disk=disk, partition=None, zone_start=0.1, zone_end=0.2, extents=1)
    layout = HostLayout(hostname="h", devices=(Device(name=disk, path=f"/dev/{disk}", size_bytes=1 << 30),),
                        locations=(location,))
    return Snapshot(server=server(), taken_at="2026-11-27T10:00:00+00:00", files=(), layout=layout)


def start(snap: Snapshot) -> list[str]:
    said: list[str] = []
    with IntervalTrace(said.append) as tracer:
        tracer.start(snap)
        tracer.stop()
        assert tracer.traces(snap, 1.0) == ()
    return said


def test_no_tracefs_and_no_right_to_mount_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    disk = next((p.name for p in sorted(Path("/sys/block").iterdir()) if (p / "dev").is_file()), None)
    if disk is None:
        pytest.skip("no block device in /sys/block")
    monkeypatch.setattr(blocktrace, "TRACEFS_MOUNTS", (tmp_path / "tracing", tmp_path / "debug" / "tracing"))
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    assert start(snapshot(disk)) == ["no block-layer trace: tracefs is not mounted and only root may mount it; "
                                     "going on without one"]


def test_no_located_file_on_a_disk_of_this_host() -> None:
    assert start(snapshot("nosuchdisk0")) == [
        "no block-layer trace: no database file is located on a whole disk this host shows in /sys/block; "
        "going on without one"]
