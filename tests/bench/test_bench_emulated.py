"""The bench against the emulated HDD: it must recover the model it measures.

Expected figures come from the model stretched over the emulated image (``sized_model``):
its sustained zone rate, and the simulator (``advisor.disk.simulate``, the same mechanism
the emulator runs) for random reads. Sequential tests run in real time; random tests run
four times faster (ratios are scale-free, and a read still takes milliseconds, so the
host's scheduling jitter stays small).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from advisor.bench.engines import Engine, Job, Region
from advisor.bench.engines.builtin import BuiltinEngine
from advisor.bench.engines.fio import FioEngine
from advisor.bench.runner import BenchRun
from advisor.bench.suite import BenchOptions, zone_jobs
from advisor.bench.target import Target, create_scratch, open_target, release
from advisor.model import save
from advisor.model.disk import DISK_PROFILE_FORMAT_VERSION, DiskProfile
from advisor.model.jsonio import read_document

emulator = pytest.importorskip("advisor.disk.emulator.device", reason="the emulated HDD is absent")
from advisor.disk.emulator.timing import sized_model  # noqa: E402
from advisor.disk.fit import fit_profile  # noqa: E402
from advisor.disk.model import DiskModel  # noqa: E402
from advisor.disk.simulate import StreamSpec, simulate  # noqa: E402
from advisor.units import DISK_MB  # noqa: E402
from tests.helpers.emulated import memory_dir  # noqa: E402

pytestmark = [pytest.mark.alone, pytest.mark.root, pytest.mark.slow, pytest.mark.flaky(reruns=1, reruns_delay=2)]
SCALE = 10.0
RATIO_SCALE = 4.0
SEEK_SCALE = 2.0
"""The seek ratios' time scale. The emulator keeps the model's time on the host's clock, whose
wake-ups come a fraction of a millisecond late, more of a shorter request's time the faster the
scale: measured on a quiet host, the cross-surface/band ratio came out +5 to +27 % above the
simulator's at scale 4 (a full stroke 3.7 ms of real time; 2 of 5 rounds over the 10 %, and a
clean-clone CI missed three times in a row before a rerun passed), +2 to +9 % at scale 2, -2 to
+8 % at scale 1 (fewer reads in the same budget). Likely why: a reader's next request that
arrives before the late decision is chosen by position, so the two streams pair up at one edge."""
SIZE = 512 << 20
ZONE_SIZE = 2 << 30  # 128 MiB per zone point: over a hundred 1 MiB reads per run
DRIVE = DiskModel(name="bench-7200", capacity_bytes=1_000_000_000_000, rpm=7200, r_od_mb_s_decimal=180.0, rho=2.0,
                  seek_track_ms=0.8, seek_avg_ms=8.5, seek_full_ms=17.0, overhead_ms=0.2)


@pytest.fixture(autouse=True)
def _needs_root_and_a_cpu() -> None:
    if os.geteuid() != 0 or not os.path.exists("/dev/fuse") or shutil.which("losetup") is None:
        pytest.skip("the emulated disk needs root, /dev/fuse and losetup")
    # The emulator keeps time with the host's clock: with more than twice as many runnable
    # tasks as cores its replies come late by whole milliseconds and no comparison with the
    # model means anything (the figures would test the machine's load, not the bench).
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    if load > 2 * cores:
        pytest.skip(f"machine oversubscribed (load {load:.1f} on {cores} cores): emulated timings not trustworthy")


@pytest.fixture
def backing(tmp_path: Path) -> Iterator[Path]:
    """Backing files in memory: a busy host disk (a venv just installed and being written
    back, say) stalls backing-file reads inside the emulated drive's time."""
    with memory_dir(tmp_path) as directory:
        yield directory


def _twice(measure_and_check: Callable[[], None]) -> None:
    """Run a measurement and its checks; up to twice more if a check missed.

    The emulator keeps time with the host's clock, so a burst of other work on this
    2-core machine can slow a few reads; further attempts separate that from a bench that
    is wrong (which misses every time). On this virtual machine one zone point in about three
    runs reads 8-9 % slow at the base revision too (measured standalone), so two tries were
    not enough to tell the machine from the bench.
    """
    for _ in range(2):
        try:
            measure_and_check()
            return
        except AssertionError:
            continue
    measure_and_check()


def _check_zones(target: Target, options: BenchOptions, profile: DiskProfile, tmp_path: Path) -> None:
    model = sized_model(DRIVE, ZONE_SIZE)
    assert len(profile.zones) == 4
    expected = []
    for point, job in zip(profile.zones, zone_jobs(target, options, 1.0), strict=True):
        region = job.regions[0]
        start, end = region.offset / ZONE_SIZE, (region.offset + region.length) / ZONE_SIZE
        assert start < point.fraction < end
        band = (start, min(end, 2 * point.fraction - start))  # the bytes actually read
        expected.append(statistics.mean(model.rate_mb_s_decimal(x) for x in np.linspace(band[0], band[1], 9)))
    measured = [point.bytes_per_s / DISK_MB for point in profile.zones]
    assert measured == pytest.approx(expected, rel=0.05)
    # the disk-model fitter reads the profile as written
    save(profile, tmp_path / "disk.json")
    loaded = read_document(tmp_path / "disk.json", "disk-profile", DiskProfile, DISK_PROFILE_FORMAT_VERSION)
    assert fit_profile(loaded).model.rho == pytest.approx(DRIVE.rho, rel=0.2)


def test_bench_recovers_the_zone_curve(tmp_path: Path, backing: Path) -> None:
    """Each zone point within 5 % of the model's sustained rate over the bytes it read.

    Real time (scale 1): ten times 180 MB/s would make the FUSE server's copying the limit.
    """
    options = BenchOptions(tests=("zones",), budget_per_test_s=12.0, runs=3, zone_points=4)
    with emulator.emulated_disk(DRIVE, ZONE_SIZE, backing / "disk.img", scale=1.0, cache="off") as disk:
        target = open_target(disk.device, want_write=False)

        def attempt() -> None:
            _check_zones(target, options, BenchRun(target, BuiltinEngine(), options).run(), tmp_path)

        _twice(attempt)


def _check_ratios(profile: DiskProfile, scale: float) -> None:
    model = sized_model(DRIVE, SIZE)

    def iops(*bands: tuple[float, float]) -> float:
        streams = [StreamSpec("randread", band, 8192) for band in bands]
        return simulate(model, streams, ios=3000, seed=1, write_cache="off").iops

    band, stroke, cross = iops((0.0, 0.01)), iops((0.0, 1.0)), iops((0.0, 0.01), (0.99, 1.0))
    assert profile.full_stroke_iops is not None and profile.cross_surface_iops is not None
    assert profile.band_iops["outer"] / profile.full_stroke_iops == pytest.approx(band / stroke, rel=0.10)
    assert profile.cross_surface_iops / profile.band_iops["outer"] == pytest.approx(cross / band, rel=0.10)
    assert profile.classification == "rotational", profile.classification_reason
    # the rpm within 15 %, or the bench says it cannot tell (a jittery host): never a confident wrong figure
    if profile.rpm is None:
        assert any("--rpm" in w for w in profile.warnings), profile.warnings
    else:
        assert profile.rpm / scale == pytest.approx(7200, rel=0.15), profile.warnings


def test_bench_recovers_the_seek_ratios(backing: Path) -> None:
    """Band/full-stroke and cross-surface/band IOPS within 10 % of the simulator's on the model.

    The simulator runs the same mechanism as the emulator (read-ahead included: a 1 % band
    of a 512 MiB disk fits the drive's cache, which the analytic predictions leave out).

    At scale 2 (:data:`SEEK_SCALE`) a band read still takes 3 ms of real time, so the host's
    scheduling jitter stays small next to the modelled service time.
    """
    options = BenchOptions(tests=("band", "stroke", "cross"), budget_per_test_s=5.0, runs=1)
    with emulator.emulated_disk(DRIVE, SIZE, backing / "disk.img", scale=SEEK_SCALE, cache="off") as disk:
        target = open_target(disk.device, want_write=False)
        _twice(lambda: _check_ratios(BenchRun(target, BuiltinEngine(), options).run(), SEEK_SCALE))


def _commit_warnings(tmp_path: Path, backing: Path, cache: str) -> tuple[float, list[str]]:
    mnt = tmp_path / f"mnt-{cache}"
    mnt.mkdir()
    options = BenchOptions(tests=("commit",), budget_per_test_s=2.0, runs=1)
    # real time (scale 1): at scale 10 the FUSE + loop + ext4 path, not the disk, would set the pace
    with emulator.emulated_disk(DRIVE, 128 << 20, backing / f"{cache}.img", scale=1.0, cache=cache) as disk:
        subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", disk.device],
                       check=True, capture_output=True)
        subprocess.run(["mount", disk.device, str(mnt)], check=True, capture_output=True)
        try:
            target = create_scratch(str(mnt / "bench.tmp"), 16 << 20, reuse=False)
            try:
                profile = BenchRun(target, BuiltinEngine(), options, rpm=int(DRIVE.rpm)).run()
            finally:
                release(target)
        finally:
            subprocess.run(["umount", str(mnt)], check=False, capture_output=True)
    assert profile.commit_per_s is not None
    return profile.commit_per_s, [w for w in profile.warnings if "RPM/60" in w]


def test_commit_test_flags_the_lying_cache_and_not_the_honest_disk(tmp_path: Path, backing: Path) -> None:
    honest_rate, honest = _commit_warnings(tmp_path, backing, "off")
    lying_rate, lying = _commit_warnings(tmp_path, backing, "lying")
    assert honest == [], (honest_rate, honest)
    assert honest_rate <= 1.2 * DRIVE.rpm / 60
    assert len(lying) == 1 and lying_rate > 1.2 * honest_rate, (lying_rate, honest_rate)


def _median_of(engine: Engine, device: str, job: Job, rounds: int) -> float:
    values = []
    for _ in range(rounds):
        result = engine.run(device, [job], threading.Event())[0]
        values.append(result.bytes_per_s if job.pattern == "read" else result.iops)
    return statistics.median(values)


def _best_of_interleaved(first: Engine, second: Engine, device: str, job: Job, rounds: int) -> tuple[float, float]:
    """Best sequential rate of each engine over alternating runs.

    At real time a 1 MiB read reaches the emulator as two 512 KiB requests, and whether the
    second arrives before its sector passes depends on host scheduling: whole runs land
    about 9 % apart (two modes, seen with either engine). Host noise only ever slows a
    run, so the best run is each engine's own rate; alternating the engines gives both the
    same chances.
    """
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(first.run(device, [job], threading.Event())[0].bytes_per_s)
        theirs.append(second.run(device, [job], threading.Event())[0].bytes_per_s)
    return max(ours), max(theirs)


def test_builtin_and_fio_agree_on_the_emulated_disk(backing: Path) -> None:
    """Sequential MB/s and QD1 random IOPS from both engines within 5 % of each other."""
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (scripts/install-system-deps.sh installs it)")
    cases = [(1.0, Job("seq", "read", (Region(0, 256 << 20),), 1 << 20, 1.5, ramp_s=0.05)),
             (RATIO_SCALE, Job("rand", "randread", (Region(0, SIZE),), 8192, 1.5, ramp_s=0.2))]
    for scale, job in cases:
        with emulator.emulated_disk(DRIVE, SIZE, backing / f"{job.name}.img", scale=scale, cache="off") as disk:

            def attempt(job: Job = job, device: str = disk.device) -> None:
                if job.pattern == "read":
                    ours, theirs = _best_of_interleaved(BuiltinEngine(), FioEngine(), device, job, 5)
                else:
                    ours = _median_of(BuiltinEngine(), device, job, 3)
                    theirs = _median_of(FioEngine(), device, job, 3)
                assert ours == pytest.approx(theirs, rel=0.05), (job.name, ours, theirs)

            _twice(attempt)
