"""`advisor collect --interval N --trace` against a PostgreSQL on a loop disk, then `advisor report`."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from advisor.model import load_workload
from advisor.storage.blocktrace import find_tracefs
from tests.helpers.cli import run_advisor, signalled
from tests.helpers.loopdisk import is_root, scratch_disk
from tests.helpers.pg import available_versions, running_postgres
from tests.helpers.traced import tracefs_or_skip

pytestmark = [pytest.mark.root, pytest.mark.pg, pytest.mark.slow]


def test_collect_traces_the_database_disk_and_report_replays_it(tmp_path: Path) -> None:
    out = tmp_path / "workload.json"
    done, name = _under_load(tmp_path, "collect", "--interval", "3", "--trace", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert f"trace of {name}: " in done.stderr
    (trace,) = load_workload(out).traces
    assert trace.disk == name and trace.requests > 0 and 0 < trace.mapped_requests <= trace.requests
    assert 2.5 < trace.ended_s - trace.started_s < 30
    assert trace.loss.missing_requests is not None
    assert any(path.endswith("pg_wal") for path in trace.files)
    # the pids the collector saw among the server's processes are named; the kernel's threads are not
    roles = {p.role for p in trace.processes}
    assert roles & {"checkpointer", "client backend", "walwriter", "background writer"}, trace.processes
    assert all(p.role is None for p in trace.processes if p.comm != "postgres")
    report = run_advisor("report", "--workload", str(out), "--format", "markdown", "--force")
    assert report.returncode == 0, report.stderr
    assert "## Replay of the traced requests" in report.stdout
    assert f"replay of {name}: " in report.stdout or f"replay: trace of {name}" in report.stdout
    if f"replay of {name}: " in report.stdout:
        assert f"### {name}: whose requests" in report.stdout


def test_trace_needs_an_interval() -> None:
    done = run_advisor("collect", "--trace")
    assert done.returncode == 6 and "--trace needs --interval" in done.stderr


def test_report_on_a_live_instance_traces_the_interval_and_replays_it(tmp_path: Path) -> None:
    """``report --dsn --interval N --trace``: the collect's interval and trace (the same code), then the replay."""
    out = tmp_path / "report.json"
    done, name = _under_load(tmp_path, "report", "--interval", "3", "--trace", "--preset", "class-7200-desktop",
                             "--force", "--format", "json", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert f"advisor: trace of {name}: " in done.stderr  # the collect's own line, from the same code
    replay = json.loads(out.read_text())["replay"]
    assert [check["disk"] for check in replay] == [name]
    assert replay[0]["refused"] is not None or replay[0]["requests"] > 0


def test_report_trace_needs_a_live_instance(tmp_path: Path) -> None:
    done = run_advisor("report", "--workload", str(tmp_path / "w.json"), "--trace")
    assert done.returncode == 6 and "--trace goes with --dsn" in done.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_killed_background_collect_removes_its_trace_and_writes_nothing(tmp_path: Path, sig: signal.Signals) -> None:
    """``kill`` of a traced collect mid-interval (as a DBA stops one started with ``&``): the
    trace ends, its tracefs instance (a kernel buffer per cpu) is removed, no workload is written,
    and the exit code is the one a shell reports for the signal."""
    versions = _traced_postgres_or_skip()
    keep, out = tmp_path / "kept", tmp_path / "w.json"
    instances: list[Path] = []

    def tracing(proc: subprocess.Popen[str]) -> None:
        deadline = time.monotonic() + 120
        while not (keep / "snapshot-a.json").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        root, _ = find_tracefs()
        instances.extend((root / "instances").glob(f"advisor-{proc.pid}-*"))
        assert len(instances) == 1, (instances, proc.poll())  # the trace runs: its instance is there

    with scratch_disk(128 << 20, [("pg", 0.9)], image_dir=tmp_path / "disk") as disk:
        mount = disk.partitions[0].mountpoint
        assert mount is not None
        with running_postgres(max(versions), mount, fsync=True) as server:
            code, err = signalled(["collect", "--dsn", server.dsn, "--interval", "300", "--trace",
                                   "--keep-snapshots", str(keep), "-o", str(out)], tracing, sig)
    assert code == 128 + sig, err
    assert "advisor: interrupted" in err and "Traceback" not in err
    assert not instances[0].exists()
    assert not out.exists() and not (keep / "snapshot-b.json").exists()


def _traced_postgres_or_skip() -> dict[int, Path]:
    """The PostgreSQL servers to run (version -> bin dir), or a skip: tracing needs root, tracefs, binaries."""
    if not is_root():
        pytest.skip("tracing the block layer needs root")
    tracefs_or_skip()
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries on this machine (make pg-binaries)")
    return versions


def _under_load(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """``advisor ARGS --dsn DSN`` on a PostgreSQL on a loop disk while commits (WAL writes and
    flushes) and checkpoints (data writes) run all along; the command's result and the disk's name."""
    versions = _traced_postgres_or_skip()
    with scratch_disk(256 << 20, [("pg", 0.9)], image_dir=tmp_path / "disk") as disk:
        mount = disk.partitions[0].mountpoint
        assert mount is not None
        with running_postgres(max(versions), mount, fsync=True) as server:
            server.psql("CREATE TABLE t (id int, body text); INSERT INTO t SELECT g, md5(g::text) FROM "
                        "generate_series(1, 20000) g; CHECKPOINT;")
            stop = threading.Event()

            def load() -> None:
                while not stop.is_set():
                    server.psql("INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 500) g; CHECKPOINT;")

            worker = threading.Thread(target=load)
            worker.start()
            try:
                return run_advisor(args[0], "--dsn", server.dsn, *args[1:]), disk.name
            finally:
                stop.set()
                worker.join()
