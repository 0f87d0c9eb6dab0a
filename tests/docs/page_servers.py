"""Inputs of the command pages whose transcripts need a live server, a disk or a made file.

A page's prose says where its files came from (two snapshots of a server, a bench profile, a
loop disk with a file on each partition). Each set-up here makes the same kind of input for
real, on the live PostgreSQL server of the docs tests, so the page's commands run as printed:
only the machine-specific parts (ports, the directories of the machine the page was made on)
are mapped to what exists here. Files that need a run too long for CI (the loop-disk workload
of ``scripts/report_sample.py``) are the committed output of that run (``fixtures/``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer

FIXTURES = Path(__file__).resolve().parent / "fixtures"

MakeInputs = Callable[[Path, PgServer, ExitStack], dict[str, str]]
"""Makes a page's inputs in its work directory; returns path prefixes of the page → live paths."""


@dataclass
class PageSetup:
    """How one page runs: its ports (→ ``pg``/``web``), the transcripts that must run, its inputs."""

    ports: dict[str, str]
    minimum: int
    make: MakeInputs | None = None
    before: Callable[[Path, PgServer, str], None] | None = None
    """Run before each transcript (with its command): steps the page takes between its commands."""
    env: Callable[[Path], dict[str, str]] | None = None
    """Environment the page's commands ran with (by work directory)."""


def advisor(workdir: Path, *args: str) -> None:
    """Run ``advisor ARGS`` in *workdir* as a set-up step; a failure stops the page with its output."""
    done = run_advisor(*args, cwd=workdir)
    assert done.returncode == 0, f"set-up step advisor {' '.join(args)} failed: {done.stdout}{done.stderr}"


def snapshots(workdir: Path, server: PgServer, names: list[str], between: Callable[[int], str]) -> None:
    """Snapshots of *server* named *names*, with the SQL ``between(i)`` run after the i-th one."""
    server.psql("CREATE TABLE IF NOT EXISTS doc_orders (id int PRIMARY KEY, pad text);"
                "INSERT INTO doc_orders SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g "
                "ON CONFLICT DO NOTHING; CHECKPOINT;")
    for index, name in enumerate(names):
        advisor(workdir, "collect", "--dsn", server.dsn, "-o", name)
        if index < len(names) - 1:
            server.psql(between(index))


def _reads_then_commits(index: int) -> str:
    """Random index lookups between the first two snapshots, single-row commits between the next."""
    if index == 0:
        return ("SELECT count(pad) FROM doc_orders "
                "WHERE id IN (SELECT (random() * 20000)::int FROM generate_series(1, 700));")
    return "".join(f"INSERT INTO doc_orders VALUES ({30000 + index * 1000 + n}, 'c');" for n in range(300))


def bench_profile(workdir: Path, name: str) -> None:
    """A short scratch-file bench of the disk under *workdir* (what ``bench --quick -o`` writes)."""
    advisor(workdir, "bench", "--scratch-file", str(workdir / "bench.scratch"), "--size", "64M", "--quick",
            "--engine", "builtin", "--budget-per-test", "0.5", "-o", name)


def findings_inputs(workdir: Path, server: PgServer, _: ExitStack) -> dict[str, str]:
    """Three snapshots (reads, then commits) and the workload of the commit interval (``vm.json``)."""
    snapshots(workdir, server, ["a.json", "b.json", "c.json"], _reads_then_commits)
    advisor(workdir, "workload", "b.json", "c.json", "-o", "vm.json")
    return {}


def audit_inputs(workdir: Path, server: PgServer, _: ExitStack) -> dict[str, str]:
    """Two snapshots of the live server with reads between them."""
    snapshots(workdir, server, ["a.json", "b.json"], _reads_then_commits)
    return {}


def report_inputs(workdir: Path, server: PgServer, _: ExitStack) -> dict[str, str]:
    """The loop-disk workload of ``scripts/report_sample.py`` (committed), a live pair, a bench profile."""
    shutil.copy(FIXTURES / "report-sample-w.json", workdir / "w.json")
    snapshots(workdir, server, ["a.json", "b.json"], _reads_then_commits)
    bench_profile(workdir, "vda.json")
    return {}


def where_inputs(workdir: Path, _: PgServer, stack: ExitStack) -> dict[str, str]:
    """The page's loop disk: a 1 GiB disk of three ext4 partitions with the files the page names,
    plus a file on tmpfs; ``/srv/demoA`` and ``/tmp/A/mem`` of the page map to them."""
    from tests.helpers.loopdisk import scratch_disk

    if os.geteuid() != 0:
        pytest.skip("the page's loop disk needs root")
    disk = stack.enter_context(scratch_disk(1 << 30, [("outer", 0.25), ("middle", 0.5), ("inner", 0.24)],
                                            image_dir=workdir / "demoA"))
    mounts = {label: Path(str(disk.partition(label).mountpoint)) for label in ("outer", "middle", "inner")}
    relation = mounts["outer"] / "pgdata/base/16384/2619_fsm"
    relation.parent.mkdir(parents=True)
    _fill(relation, 64)
    wal = mounts["inner"] / "pg_wal"
    wal.mkdir()
    for segment in range(3):
        _fill(wal / f"00000001000000000000000{segment + 1}", 16)
    _fill(mounts["middle"] / "fragmented", 6)
    memory = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="advisor-docs-"))
    stack.callback(shutil.rmtree, memory, True)
    (memory / "scratch").write_text("x\n")
    return {"/srv/demoA": str(workdir / "demoA"), "/tmp/A/mem": str(memory)}


def _fill(path: Path, mebibytes: int) -> None:
    with path.open("wb") as handle:
        for _ in range(mebibytes):
            handle.write(os.urandom(1 << 20))
        handle.flush()
        os.fsync(handle.fileno())


def bench_inputs(workdir: Path, _: PgServer, stack: ExitStack) -> dict[str, str]:
    """What bench.md's refusals act on: a loop device of its own (never a device in use), an
    existing scratch path, a fallocated and a sparse file, a directory on tmpfs."""
    from tests.helpers.loopdisk import scratch_disk

    if os.geteuid() != 0:
        pytest.skip("the page's loop device needs root")
    disk = stack.enter_context(scratch_disk(64 << 20, None, fs=None, image_dir=workdir / "loop"))
    advdoc = workdir / "advdoc"
    (advdoc / "mnt").mkdir(parents=True)
    (advdoc / "exists.tmp").write_text("keep me\n")
    scratch = workdir / "scratch-G"
    scratch.mkdir()
    subprocess.run(["fallocate", "-l", "256M", str(scratch / "fa.dat")], check=True)
    with (scratch / "sp.dat").open("wb") as sparse:
        sparse.truncate(256 << 20)
    memory = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="advisor-docs-"))
    stack.callback(shutil.rmtree, memory, True)
    return {"/dev/loop1": disk.device, "/var/tmp/advdoc": str(advdoc), "/work/scratch-G": str(scratch),
            "/dev/shm": str(memory)}

