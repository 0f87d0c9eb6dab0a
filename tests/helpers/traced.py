"""Real IO for the trace tests: files on scratch disks, O_DIRECT readers, and documents around them.

``file_snapshot`` makes the snapshot a collect would (files of tablespaces, the host layout
from the real locator), ``closed_loop_readers`` runs one reader thread per stream (each reads
8 KiB at random offsets of its file, one at a time: a closed loop, as a database backend is),
and ``traced_workload`` rates the files by the reads the test issued, with the traces.
"""

from __future__ import annotations

import mmap
import os
import random
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import pytest

from advisor.disk.emulator.system import pid_alive
from advisor.model import BlockTrace, FileIO, FileRate, Snapshot, WaitProfile, Workload
from advisor.storage.blocktrace import INSTANCE_PREFIX, TRACEFS_MOUNTS, TraceUnavailable, find_tracefs, unmount_tracefs
from advisor.storage.layout import build_layout
from tests.helpers.loopdisk import is_root
from tests.helpers.threads import run_at_once
from tests.helpers.workloads import server

BLOCK = 8192


def file_snapshot(tablespaces: dict[str, Sequence[Path]]) -> Snapshot:
    """A snapshot of *tablespaces* (name -> data files) located on this host."""
    files = tuple(FileIO(file_id=f"{name}/{i}", path=str(path), kind="data", tablespace=name, container="app",
                         size_bytes=path.stat().st_size, reads=0, writes=0, read_bytes=0, write_bytes=0)
                  for name, paths in tablespaces.items() for i, path in enumerate(paths))
    layout = build_layout([f.path for f in files])
    return Snapshot(server=server(), taken_at="2026-11-27T10:00:00+00:00", files=files, layout=layout)


def closed_loop_readers(streams: Sequence[tuple[Path, int]], seed: int = 0) -> dict[str, int]:
    """Run one O_DIRECT QD1 reader per (file, reads) at once; reads done per file path."""
    def read(path: Path, count: int, stream_seed: int) -> int:
        rnd = random.Random(stream_seed)
        blocks = path.stat().st_size // BLOCK
        buffer = mmap.mmap(-1, BLOCK)
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        try:
            for _ in range(count):
                os.preadv(fd, [buffer], rnd.randrange(blocks) * BLOCK)
        finally:
            os.close(fd)
            buffer.close()
        return count

    counts = run_at_once([partial(read, path, count, seed + k) for k, (path, count) in enumerate(streams)])
    done: dict[str, int] = {}
    for (path, _), count in zip(streams, counts, strict=True):
        done[str(path)] = done.get(str(path), 0) + count
    return done


def traced_workload(snapshot: Snapshot, reads: dict[str, int], seconds: float,
                    traces: tuple[BlockTrace, ...]) -> Workload:
    """The workload of *snapshot*'s files with the reads the test issued over *seconds*, and *traces*."""
    rates = tuple(FileRate(file_id=f.file_id, path=f.path, kind=f.kind, tablespace=f.tablespace, container=f.container,
                           size_bytes=f.size_bytes, read_iops=reads.get(f.path, 0) / seconds, write_iops=0.0,
                           read_mb_s=reads.get(f.path, 0) * BLOCK / seconds / (1 << 20), write_mb_s=0.0,
                           mean_read_kb=BLOCK / 1024, mean_write_kb=None, random_share=1.0, read_latency_ms=None,
                           write_latency_ms=None, name=f"public.{f.tablespace}")
                  for f in snapshot.files)
    return Workload(server(), "2026-11-27T10:00:00+00:00", "2026-11-27T10:01:00+00:00", seconds, rates,
                    wait=WaitProfile(io_wait_share=0.8, samples=60), layout=snapshot.layout, traces=traces)


def tracefs_or_skip() -> None:
    """Skip unless root with tracefs and the block tracepoints, where it is mounted or as the tracer itself
    mounts it (a fresh machine has it unmounted: checking only the mount point skipped every trace test)."""
    if not is_root():
        pytest.skip("tracing the block layer needs root")
    try:
        root, mounted = find_tracefs()
    except TraceUnavailable as exc:
        pytest.skip(f"no tracefs here: {exc}")
    try:
        if not (root / "events" / "block" / "block_rq_issue").is_dir():
            pytest.skip("tracefs has no block tracepoints here")
    finally:
        if mounted:  # as the tracer leaves it: it mounts tracefs again when it runs
            unmount_tracefs(root)


def orphaned_instances() -> set[str]:
    """The ``advisor-<pid>-*`` tracefs instances whose process is gone: what a trace killed
    before it could remove its instance left (empty where tracefs is not mounted)."""
    found: set[str] = set()
    for root in TRACEFS_MOUNTS:
        for instance in (root / "instances").glob(f"{INSTANCE_PREFIX}*"):
            pid = instance.name.removeprefix(INSTANCE_PREFIX).split("-")[0]
            if pid.isdigit() and not pid_alive(int(pid)):
                found.add(instance.name)
    return found
