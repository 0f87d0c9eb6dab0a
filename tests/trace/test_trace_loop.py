"""Tracing real IO on a loop device: the requests, mapped to their files, stored and read back."""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from advisor.collect.trace import finish_trace, tracing_disks
from advisor.model import load_workload, save
from advisor.storage import blocktrace
from advisor.storage.blocktrace import find_tracefs, traced_events, unmount_tracefs
from advisor.trace.codec import decode_extents, decode_requests
from advisor.trace.extents import ExtentIndex
from tests.helpers.loopdisk import ScratchDisk, scratch_disk, write_file
from tests.helpers.traced import closed_loop_readers, file_snapshot, traced_workload, tracefs_or_skip

pytestmark = pytest.mark.root


@pytest.fixture(scope="module")
def two_files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ScratchDisk, Path, Path]]:
    tracefs_or_skip()
    root = tmp_path_factory.mktemp("trace-loop")
    with scratch_disk(96 << 20, [("one", 0.45), ("two", 0.45)], image_dir=root) as disk:
        first = disk.partitions[0].mountpoint
        second = disk.partitions[1].mountpoint
        assert first is not None and second is not None
        a, b = first / "a.dat", second / "b.dat"
        write_file(a, 4 << 20, seed=1)
        write_file(b, 2 << 20, seed=2)
        yield disk, a, b


@pytest.fixture
def tracefs_root() -> Iterator[Path]:
    """The tracefs root, mounted for the test when it was not, and unmounted again (a machine keeps what it had)."""
    root, mounted = find_tracefs()
    try:
        yield root
    finally:
        if mounted:
            unmount_tracefs(root)


def test_requests_are_traced_mapped_to_their_files_stored_and_read_back(
        two_files: tuple[ScratchDisk, Path, Path], tmp_path: Path, tracefs_root: Path) -> None:
    disk, a, b = two_files
    snapshot = file_snapshot({"one": [a], "two": [b]})
    started = time.monotonic()
    with tracing_disks(snapshot) as session:
        reads = closed_loop_readers([(a, 120), (b, 60)])
    seconds = time.monotonic() - started
    assert not _own_instances(tracefs_root), "the tracefs instance must be removed"
    (trace,) = finish_trace(session, snapshot, seconds)
    assert trace.disk == disk.name and trace.disk_size_bytes == disk.size_bytes
    assert trace.loss.overrun == 0 and trace.loss.dropped_events == 0
    # every read reached the disk as one request (O_DIRECT, one at a time per file: nothing to merge)
    requests = decode_requests(trace.data, trace.requests, trace.started_s)
    table = decode_extents(trace.extents, len(trace.files))
    files = ExtentIndex(table).files(requests.sector * 512)
    counted = {trace.files[f]: int(n) for f, n in zip(*np.unique(files[files >= 0], return_counts=True), strict=True)}
    assert counted == {str(a): 120, str(b): 60}
    assert trace.mapped_requests == 180
    assert trace.loss.diskstats_requests is not None and trace.loss.diskstats_requests >= 180
    assert trace.loss.missing_requests == 0
    assert (requests.service_s > 0).all() and (np.diff(requests.issue_s) >= 0).all()
    # the two reader threads issued them (each thread is a task of its own, named after the program)
    issuers = {trace.processes[p] for p in requests.process[files >= 0].tolist()}
    own = Path("/proc/self/comm").read_text().strip()
    assert len(issuers) == 2 and {p.comm for p in issuers} == {own} and os.getpid() not in {p.pid for p in issuers}
    path = tmp_path / "workload.json"
    save(traced_workload(snapshot, reads, seconds, (trace,)), path)
    assert load_workload(path).traces == (trace,)
    assert b"advisor-1-a.dat" not in path.read_bytes()  # positions and times, never the files' contents


def test_ctrl_c_removes_the_instance(two_files: tuple[ScratchDisk, Path, Path], tracefs_root: Path) -> None:
    _, a, b = two_files
    snapshot = file_snapshot({"one": [a], "two": [b]})
    with pytest.raises(KeyboardInterrupt), tracing_disks(snapshot):
        (instance,) = _own_instances(tracefs_root)
        raise KeyboardInterrupt
    assert not instance.exists() and not _own_instances(tracefs_root)


def test_fsyncs_give_flushes_paired_with_their_own_completions(two_files: tuple[ScratchDisk, Path, Path]) -> None:
    _, a, b = two_files
    snapshot = file_snapshot({"one": [a], "two": [b]})
    commits = 25

    def commit(path: Path) -> None:
        fd = os.open(path, os.O_WRONLY)
        try:
            for k in range(commits):
                os.pwrite(fd, os.urandom(4096), k * 4096)
                os.fdatasync(fd)
        finally:
            os.close(fd)

    os.sync()
    with tracing_disks(snapshot) as session:
        threads = [threading.Thread(target=commit, args=(path,)) for path in (a, b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    (trace,) = finish_trace(session, snapshot, 1.0)
    requests = decode_requests(trace.data, trace.requests, trace.started_s, trace.encoding)
    flushes = requests.op == 2
    # the kernel prints a flush's completion at sector 2^64-1 and then ends each fsync's empty write
    # (never issued): a flush pairs with its own completion, those ends are neither orphans nor requests
    assert 0 < flushes.sum() <= 2 * commits
    assert trace.loss.edge_requests < flushes.sum()
    assert trace.loss.missing_requests == 0 and trace.loss.excess_requests == 0
    assert (requests.sectors[flushes] == 0).all() and (requests.service_s[flushes] >= 0).all()
    assert ((requests.op == 1) & (requests.sectors > 0)).sum() >= 2 * commits


def test_the_requeue_event_is_traced_where_the_kernel_has_it_and_not_needed(
        two_files: tuple[ScratchDisk, Path, Path], monkeypatch: pytest.MonkeyPatch, tracefs_root: Path) -> None:
    _, a, b = two_files
    root = tracefs_root
    has_requeue = (root / "events" / "block" / "block_rq_requeue").is_dir()
    assert ("block_rq_requeue" in traced_events(root)) == has_requeue
    snapshot = file_snapshot({"one": [a], "two": [b]})
    if has_requeue:
        with tracing_disks(snapshot):
            (instance,) = _own_instances(root)
            assert (instance / "events" / "block" / "block_rq_requeue" / "enable").read_text().strip() == "1"
    # a kernel without the tracepoint: the trace is taken with the two required events alone
    monkeypatch.setattr(blocktrace, "OPTIONAL_EVENTS", ("block_rq_no_such_event",))
    assert traced_events(root) == blocktrace.REQUIRED_EVENTS
    with tracing_disks(snapshot) as session:
        closed_loop_readers([(a, 20), (b, 10)])
    (trace,) = finish_trace(session, snapshot, 1.0)
    assert trace.mapped_requests == 30 and trace.loss.missing_requests == 0 and trace.loss.excess_requests == 0


def test_a_killed_traces_instance_is_removed_and_a_live_one_never(
        two_files: tuple[ScratchDisk, Path, Path], tracefs_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An instance a SIGKILLed trace left (its name even taken by this pid) neither blocks a new
    trace nor outlives it; one whose trace_pipe a process holds, or that is too young, is kept."""
    _, a, b = two_files
    instances = tracefs_root / "instances"
    token = secrets.token_hex(4)  # tracefs is the host's: names a killed run of this test left must not collide
    left = instances / f"advisor-{os.getpid()}-dead{token}"  # as a killed trace leaves it: events on
    held = instances / f"advisor-{os.getpid()}-live{token}"
    other = instances / f"other-tracer-{token}"  # another tool's instance: never ours to remove
    for made in (left, held, other):
        made.mkdir()
    (left / "events" / "block" / "block_rq_issue" / "enable").write_text("1")
    pipe = os.open(held / "trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert blocktrace.sweep_stale(instances, blocktrace.STALE_AFTER_S) == 0  # all younger than that
        assert left.is_dir() and held.is_dir()
        # a second, not 0: a trace of another test running beside this one is not yet holding its
        # trace_pipe for the few milliseconds it writes its settings
        monkeypatch.setattr(blocktrace, "STALE_AFTER_S", 1.0)
        time.sleep(1.2)
        snapshot = file_snapshot({"one": [a], "two": [b]})
        with tracing_disks(snapshot) as session:
            closed_loop_readers([(a, 5)])
        assert session.capture.stale_removed >= 1
        assert not left.exists() and held.is_dir() and other.is_dir()
        assert set(_own_instances(tracefs_root)) == {held}
    finally:
        os.close(pipe)
        for made in (left, held, other):
            if made.exists():
                made.rmdir()


def _own_instances(root: Path) -> list[Path]:
    """The tracefs instances this process's traces made (``advisor-<pid>-<random>``)."""
    return sorted((root / "instances").glob(f"advisor-{os.getpid()}-*"))
