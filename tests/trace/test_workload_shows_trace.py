"""`advisor workload` shows what a workload's block-layer trace holds: real reads on a loop disk,
traced through tracefs, stored in a workload document and shown per disk and per area."""

from __future__ import annotations

import dataclasses
import mmap
import os
import threading
import time
from pathlib import Path

import pytest

from advisor.collect.trace import finish_trace, named_processes, tracing_disks
from advisor.engine.trace_figures import NO_FILE, trace_figures
from advisor.model import SessionSeen, save
from tests.helpers.cli import run_advisor
from tests.helpers.loopdisk import scratch_disk, write_file
from tests.helpers.traced import closed_loop_readers, file_snapshot, traced_workload, tracefs_or_skip

pytestmark = pytest.mark.root


def _write_direct(path: Path, count: int) -> None:
    """*count* O_DIRECT 16 KiB writes into the first MiB of *path*, one at a time."""
    buffer = mmap.mmap(-1, 16384)
    fd = os.open(path, os.O_WRONLY | os.O_DIRECT)
    try:
        for i in range(count):
            os.pwrite(fd, buffer, (i % 64) * 16384)
    finally:
        os.close(fd)
        buffer.close()


def test_the_page_shows_requests_in_flight_loss_soundness_and_each_areas_mix(tmp_path: Path) -> None:
    tracefs_or_skip()
    with scratch_disk(96 << 20, [("one", 0.45), ("two", 0.45)], image_dir=tmp_path / "disk") as disk:
        first, second = disk.partitions[0].mountpoint, disk.partitions[1].mountpoint
        assert first is not None and second is not None
        a, b = first / "a.dat", second / "b.dat"
        write_file(a, 4 << 20, seed=1)
        write_file(b, 2 << 20, seed=2)
        snapshot = file_snapshot({"one": [a], "two": [b]})
        started = time.monotonic()
        with tracing_disks(snapshot) as session:
            writer = threading.Thread(target=_write_direct, args=(b, 30))
            writer.start()
            reads = closed_loop_readers([(a, 120), (a, 120), (b, 60)])
            writer.join()
        seconds = time.monotonic() - started
        (trace,) = finish_trace(session, snapshot, seconds)
    # name one traced process as the collect names a server's (its pid seen among the sessions)
    first = trace.processes[0]
    trace = dataclasses.replace(trace, processes=named_processes(trace.processes,
                                                                 [SessionSeen(first.pid, "shop", "client backend")]))
    work = traced_workload(snapshot, reads, seconds, (trace,))
    (figures,) = trace_figures(work)
    assert figures.issuers == (("shop", 1),) and figures.unnamed_processes == len(trace.processes) - 1
    assert figures.disk == disk.name and figures.requests == trace.requests
    areas = {row.area: row for row in figures.areas}
    # every O_DIRECT read and write reached the disk as one request of its own size
    assert areas["one"].requests == 240 and areas["one"].read_share == 1.0 and areas["one"].mean_kib == 8.0
    assert areas["two"].requests == 90 and areas["two"].read_share == pytest.approx(60 / 90)
    assert areas["two"].mean_kib == pytest.approx((60 * 8 + 30 * 16) / 90)
    assert set(areas) - {"one", "two"} <= {NO_FILE}  # file-system metadata at most
    # the loop disk lives in memory: its requests may never overlap, so one in flight is a right answer
    assert figures.max_in_flight >= 1 and 0 < (figures.mean_in_flight or 0) <= figures.max_in_flight
    assert figures.replayable and figures.refused is None
    path = tmp_path / "workload.json"
    save(work, path)
    done = run_advisor("workload", str(path), env={"COLUMNS": "160"})
    assert done.returncode == 0, done.stderr
    page = done.stdout
    assert f"Block-layer trace of {disk.name} (collect --trace): {trace.requests:,} requests" in page
    assert f"at most {figures.max_in_flight}" in page
    assert f"{trace.loss.traced_completions:,} completions traced" in page
    assert "sound: a replay may use it" in page
    assert f"processes: shop 1; {len(trace.processes) - 1} not named by the server" in page
    table = page[page.index(f"Traced requests of {disk.name} per area"):]
    row = next(line.split() for line in table.splitlines() if line.split()[:1] == ["two"])
    assert row[1:] == ["90", f"{(60 * 8 + 30 * 16) / 90:.1f}", "67%", "33%"]


def test_a_trace_of_another_disk_is_shown_unsound_with_its_reason(tmp_path: Path) -> None:
    tracefs_or_skip()
    with scratch_disk(64 << 20, [("one", 0.9)], image_dir=tmp_path / "disk") as disk:
        mount = disk.partitions[0].mountpoint
        assert mount is not None
        a = mount / "a.dat"
        write_file(a, 2 << 20, seed=3)
        snapshot = file_snapshot({"one": [a]})
        with tracing_disks(snapshot) as session:
            reads = closed_loop_readers([(a, 20)])
        (trace,) = finish_trace(session, snapshot, 1.0)
    moved = trace.__class__(**{**{f: getattr(trace, f) for f in trace.__struct_fields__}, "disk": "sdz"})
    (figures,) = trace_figures(traced_workload(snapshot, reads, 1.0, (moved,)))
    assert not figures.replayable
    assert figures.refused == "trace of sdz: another disk (not in the workload's layout); no replay"
