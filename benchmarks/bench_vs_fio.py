"""Built-in engine against fio, side by side on the same target.

Runs QD1 and QD32 random 8 KiB reads and sequential 1 MiB reads with both engines,
alternating which goes first, and prints IOPS, p50 and p99 per engine and the ratio
builtin/fio (targets: >= 0.95 at QD1, >= 0.90 at QD32, sequential within 5 %). The ratio
is the median of the per-round ratios of back-to-back runs, with their range: on a
machine shared with other work the device's speed drifts by several times within a
minute, and only runs a few seconds apart see the same device.

Both engines read into huge pages: the builtin engine always does for large buffers (see
advisor/bench/engines/buffers.py), and fio gets ``mem=shmhuge`` on a few huge pages
reserved for the run (root; ``vm.nr_hugepages`` is put back after). On a virtio disk the
memory decides the figure: fio's own malloc'd buffers read 1 MiB sequentially at 0.65-1.7
GB/s where huge pages read 4.6-5.5 GB/s (``--fio-memory malloc`` shows it).

Targets: a scratch file on the filesystem holding --dir (a real file on a real disk), and,
when run as root with FUSE and the emulator available, the emulated 7200 rpm HDD (random
reads at four times real speed, sequential in real time), which is the fair target: its
service times come from the model, not from whatever else this machine is doing.

    .venv/bin/python benchmarks/bench_vs_fio.py [--seconds 3] [--rounds 5] [--dir /var/tmp] [--fio-memory huge|malloc]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from advisor.bench.engines import Engine, Job, JobResult, Region
from advisor.bench.engines.builtin import BuiltinEngine
from advisor.bench.engines.fio import FioEngine
from advisor.bench.target import create_scratch, release

SIZE = 1 << 30
#: fio takes one huge page per job (a 1 MiB or 32 x 8 KiB buffer); a few spare.
HUGE_PAGES_FOR_FIO = 4
#: Four times real speed: a 7200 rpm read still takes milliseconds, so host jitter stays small.
EMULATED_SCALE = 4.0


def cases(size: int, seconds: float, kinds: str = "rs") -> list[Job]:
    """The jobs: random ('r') and/or sequential ('s')."""
    whole = (Region(0, size),)
    ramp = min(1.0, seconds / 5)
    jobs = []
    if "r" in kinds:
        jobs += [Job("QD1 rand 8K", "randread", whole, 8192, seconds, depth=1, ramp_s=ramp),
                 Job("QD32 rand 8K", "randread", whole, 8192, seconds, depth=32, ramp_s=ramp)]
    if "s" in kinds:
        jobs.append(Job("seq 1M", "read", (Region(0, size),), 1 << 20, seconds))
    return jobs


def measure(engine: Engine, path: str, job: Job) -> JobResult:
    return engine.run(path, [job], threading.Event())[0]


def compare(label: str, path: str, size: int, seconds: float, rounds: int, fio_memory: str,
            kinds: str = "rs") -> None:
    builtin, fio = BuiltinEngine(), FioEngine(fio_memory)
    print(f"\n{label}: {path} ({size >> 20} MiB), {rounds} rounds x {seconds:g} s, median; "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; fio mem={fio_memory}")
    print(f"{'test':<14}{'builtin':>12}{'p50 ms':>9}{'p99 ms':>9}{'fio':>12}{'p50 ms':>9}{'p99 ms':>9}{'ratio':>8}"
          f"{'range':>14}  {'builtin path':<12}")
    for job in cases(size, seconds, kinds):
        mine: list[JobResult] = []
        theirs: list[JobResult] = []
        # one untimed pass first: whatever caches sit below (the hypervisor's, for a file on
        # a virtual disk) are then in the same state for both engines in every round
        measure(builtin, path, job)
        for round_ in range(rounds):
            order: list[tuple[Engine, list[JobResult]]] = [(builtin, mine), (fio, theirs)]
            if round_ % 2:
                order.reverse()
            for engine, sink in order:
                sink.append(measure(engine, path, job))
        sequential = job.pattern == "read"

        def value(result: JobResult, seq: bool = sequential) -> float:
            return result.bytes_per_s / 1e6 if seq else result.iops

        b = statistics.median(value(r) for r in mine)
        f = statistics.median(value(r) for r in theirs)
        bl = statistics.median(r.latency.p50_ms for r in mine), statistics.median(r.latency.p99_ms for r in mine)
        fl = statistics.median(r.latency.p50_ms for r in theirs), statistics.median(r.latency.p99_ms for r in theirs)
        ratios = [value(m) / value(t) for m, t in zip(mine, theirs, strict=True) if value(t) > 0]
        ratio = statistics.median(ratios) if ratios else 0.0
        spread = f"{min(ratios):.2f}–{max(ratios):.2f}" if ratios else ""
        unit = " MB/s" if sequential else ""
        print(f"{job.name:<14}{b:>12.0f}{bl[0]:>9.3f}{bl[1]:>9.3f}{f:>12.0f}{fl[0]:>9.3f}{fl[1]:>9.3f}"
              f"{ratio:>8.3f}{spread:>14}  {mine[0].io_path:<12}{unit}")


@contextlib.contextmanager
def emulated(tmp: Path, scale: float) -> Iterator[str | None]:
    if os.geteuid() != 0 or not os.path.exists("/dev/fuse"):
        print("\n(emulated HDD skipped: needs root and /dev/fuse)")
        yield None
        return
    try:
        from advisor.disk.emulator.device import emulated_disk
        from advisor.disk.model import DiskModel
    except ImportError:
        print("\n(emulated HDD skipped: advisor.disk.emulator.device is not available)")
        yield None
        return
    drive = DiskModel(name="bench-7200", capacity_bytes=1_000_000_000_000, rpm=7200, r_od_mb_s_decimal=180.0)
    with emulated_disk(drive, 512 << 20, tmp / f"disk-{scale:g}.img", scale=scale, cache="off") as disk:
        yield disk.device


@contextlib.contextmanager
def huge_pages(wanted: str) -> Iterator[str]:
    """fio's ``mem=`` for the run: ``shmhuge`` on a few reserved huge pages when *wanted* is
    "huge" and they can be had (root), restoring ``vm.nr_hugepages`` afterwards; else malloc."""
    knob = Path("/proc/sys/vm/nr_hugepages")
    if wanted != "huge":
        yield "malloc"
        return
    try:
        before = int(knob.read_text())
        knob.write_text(str(before + HUGE_PAGES_FOR_FIO))
    except OSError as exc:
        print(f"(fio runs with malloc'd buffers: cannot reserve huge pages: {exc.strerror})")
        yield "malloc"
        return
    try:
        yield "shmhuge"
    finally:
        knob.write_text(str(before))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", default="/var/tmp", help="directory for the scratch file (a disk filesystem)")
    parser.add_argument("--fio-memory", choices=("huge", "malloc"), default="huge",
                        help="fio's buffers: huge pages like the builtin engine's (default), or fio's malloc")
    args = parser.parse_args()
    # killed, still clean up: the scratch file, the emulated disk and vm.nr_hugepages
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="advisor-bvf-") as tmp, \
            huge_pages(args.fio_memory) as fio_memory:
        target = create_scratch(str(Path(tmp) / "scratch.dat"), SIZE, reuse=False)
        try:
            compare("real file", target.path, target.size_bytes, args.seconds, args.rounds, fio_memory)
        finally:
            release(target)
        # random reads four times faster than real; sequential in real time, since four times
        # 180 MB/s through the emulator's FUSE server measures its copying, not the disk
        for scale, kinds in ((EMULATED_SCALE, "r"), (1.0, "s")):
            with emulated(Path(tmp), scale) as device:
                if device:
                    label = f"emulated 7200 rpm HDD (scale {scale:g})"
                    compare(label, device, 512 << 20, args.seconds, args.rounds, fio_memory, kinds)


if __name__ == "__main__":
    main()
