"""The fio engine: the same jobs as generated fio job files, results from fio's JSON.

fio is the reference every storage person trusts; running our jobs through it (when it is
installed) both gives trusted numbers and checks the built-in engine. Each ``Job`` becomes
one reporting group (``group_reporting`` + ``stonewall``/``new_group``), one section per
region, so the cross-surface test's two workers run at once and are reported together.
Read batches run with ``--readonly``, fio's own guard against writes.
"""

from __future__ import annotations

import json
import signal
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from advisor.bench.engines import PERCENTILES, Job, JobResult, streaming_rate
from advisor.errors import DeviceError
from advisor.model.disk import Latency


def _ms(value: float) -> str:
    return f"{max(1, round(value * 1000))}ms"


def _escape(path: str) -> str:
    """fio splits filenames on ':'; escape it."""
    return path.replace(":", "\\:")


def job_file(path: str, jobs: Sequence[Job], memory: str = "malloc") -> str:
    """Render *jobs* as one fio job file (one reporting group per job, run in order);
    *memory* is fio's ``mem=`` for the IO buffers."""
    lines = ["[global]", f"filename={_escape(path)}", "group_reporting=1", "allow_file_create=0", "thread=1",
             *([f"mem={memory}"] if memory != "malloc" else []), ""]
    for number, job in enumerate(jobs):
        for index, region in enumerate(job.regions):
            lines.append(f"[{job.name}.{index}]" if len(job.regions) > 1 else f"[{job.name}]")
            if index == 0 and number > 0:
                lines += ["stonewall", "new_group"]
            lines += [f"bs={job.block_size}", f"offset={region.offset}", f"size={region.length}"]
            if job.ramp_s > 0:
                lines.append(f"ramp_time={_ms(job.ramp_s)}")
            lines.append(f"runtime={_ms(job.runtime_s)}")
            lines += _pattern_options(job)
            lines.append("")
    return "\n".join(lines)


def _pattern_options(job: Job) -> list[str]:
    if job.pattern == "read":
        return ["rw=read", "direct=1", "ioengine=psync"]
    if job.pattern == "randread":
        engine = ["ioengine=psync"] if job.depth <= 1 else ["ioengine=libaio", f"iodepth={job.depth}"]
        return ["rw=randread", "direct=1", "norandommap=1", "randrepeat=0", "time_based=1", *engine]
    return ["rw=write", "direct=0", "ioengine=psync", "fdatasync=1", "time_based=1", "loops=1000000000"]


def _io_path(job: Job) -> str:
    """The fio ioengine a job runs with (as in :func:`_pattern_options`)."""
    return "fio-libaio" if job.pattern == "randread" and job.depth > 1 else "fio-psync"


def _latency(stats: dict[str, Any]) -> tuple[Latency, dict[float, float]]:
    table_ns = stats.get("percentile", {})
    table = {p: float(table_ns.get(f"{p:f}", 0.0)) / 1e6 for p in PERCENTILES}
    latency = Latency(
        mean_ms=float(stats.get("mean", 0.0)) / 1e6,
        p50_ms=float(table_ns.get("50.000000", 0.0)) / 1e6,
        p99_ms=float(table_ns.get("99.000000", 0.0)) / 1e6,
        max_ms=float(stats.get("max", 0.0)) / 1e6,
    )
    return latency, table


def parse_results(jobs: Sequence[Job], document: dict[str, Any]) -> list[JobResult]:
    """Map fio's ``jobs[]`` (one entry per reporting group) back onto our jobs."""
    results = []
    for job, entry in zip(jobs, document.get("jobs", []), strict=False):
        if job.pattern == "commit":
            write = entry["write"]
            latency, table = _latency(entry.get("sync", {}).get("lat_ns", {}))
            write_ms = float(write["lat_ns"]["mean"]) / 1e6
            latency = Latency(latency.mean_ms + write_ms, latency.p50_ms + write_ms, latency.p99_ms + write_ms,
                              (latency.max_ms or 0.0) + write_ms)
            side = write
        else:
            side = entry["read"]
            latency, table = _latency(side["clat_ns"])
        seconds = float(side.get("runtime", 0)) / 1000
        ios, rate = int(side.get("total_ios", 0)), float(side["bw_bytes"])
        if job.pattern == "read":
            total = side.get("lat_ns", {})
            rate, seconds = streaming_rate(ios, float(total.get("mean", 0.0)), float(total.get("max", 0.0)),
                                           job.block_size)
        results.append(JobResult(job.name, ios, seconds, float(side["iops"]), rate, latency, table,
                                 io_path=_io_path(job)))
    return results


class FioEngine:
    """Runs jobs through the ``fio`` binary (``--output-format=json``).

    *memory* is fio's ``mem=`` option. The default, ``malloc``, is what fio users get; its
    buffers are physically scattered, so a 1 MiB read travels in many segments and on some
    devices (virtio) reads slower than into contiguous memory. ``shmhuge`` puts fio's buffers
    on reserved huge pages (``vm.nr_hugepages``), like the builtin engine's transparent ones:
    the like-for-like comparison ``benchmarks/bench_vs_fio.py`` makes.
    """

    name = "fio"
    job_overhead_s = 0.3

    def __init__(self, memory: str = "malloc") -> None:
        self.memory = memory

    def run(self, path: str, jobs: Sequence[Job], stop: threading.Event) -> list[JobResult]:
        """Run all *jobs* in one fio process; on Ctrl-C stop fio and keep nothing of it."""
        if not jobs or stop.is_set():
            return []
        readonly = all(job.pattern != "commit" for job in jobs)
        with tempfile.TemporaryDirectory(prefix="advisor-fio-") as tmp:
            spec = Path(tmp) / "bench.fio"
            spec.write_text(job_file(path, jobs, self.memory))
            argv = ["fio", "--output-format=json", *(["--readonly"] if readonly else []), str(spec)]
            with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  start_new_session=True) as proc:
                try:
                    out, err = proc.communicate()
                except KeyboardInterrupt:
                    stop.set()
                    proc.send_signal(signal.SIGINT)
                    try:
                        proc.wait(10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                    raise
        if proc.returncode != 0:
            last = (err.strip().splitlines() or ["no message"])[-1]
            raise DeviceError(f"fio failed on {path}: {last}")
        start = out.find("{")
        try:
            document = json.loads(out[start:])
        except json.JSONDecodeError:
            raise DeviceError(f"fio printed no JSON for {path}") from None
        return parse_results(jobs, document)
