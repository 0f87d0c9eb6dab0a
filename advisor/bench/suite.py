"""The bench tests as engine jobs: zones, band, stroke, cross-surface, queue depth, commit.

Each test gets a time budget, split evenly over its runs (3 by default, for the stability
check) and its measurements. Random tests get a warm-up (``ramp``) whose IOs are not
counted; random offsets are drawn afresh each run so the drive's cache cannot serve
repeats. Results are kept per run in :class:`Measurements` as they arrive, so Ctrl-C
leaves everything measured so far available for a partial profile.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from advisor.bench.engines import Engine, Job, JobResult, Region
from advisor.bench.target import Target
from advisor.errors import BadInput
from advisor.model.disk import WriteCliff
from advisor.units import MIB

ALL_TESTS = ("zones", "band", "stroke", "cross", "qd", "commit")
#: Tests run only when named: the SMR test writes for as long as its budget allows.
OPT_IN_TESTS = ("smr",)
QUICK_BUDGET_S = 7.0
FULL_BUDGET_S = 90.0
QUEUE_DEPTHS = (1, 4, 16, 32)
BANDS = ("outer", "middle", "inner")
_ZONE_CHUNK = 256 * MIB


@dataclass(frozen=True, slots=True)
class BenchOptions:
    """What to measure and for how long."""

    tests: tuple[str, ...] = ALL_TESTS
    budget_per_test_s: float = QUICK_BUDGET_S
    runs: int = 3
    zone_points: int = 20
    block_size: int = 8192
    seq_block_size: int = MIB
    band_fraction: float = 0.01
    queue_depths: tuple[int, ...] = QUEUE_DEPTHS


@dataclass
class Measurements:
    """Per-run results by measurement key (``band.outer``, ``qd.16`` ...), filled as they come."""

    results: dict[str, list[JobResult]] = field(default_factory=dict)
    zone_fractions: dict[str, float] = field(default_factory=dict)  # zone key → LBA fraction read
    notes: list[str] = field(default_factory=list)
    finished_tests: list[str] = field(default_factory=list)
    write_cliff: WriteCliff | None = None

    def add(self, result: JobResult) -> None:
        """Record one job's result under its name."""
        self.results.setdefault(result.name, []).append(result)


def parse_tests(text: str) -> tuple[str, ...]:
    """``zones,band`` → ("zones", "band"); unknown names are a usage error."""
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    unknown = [name for name in names if name not in ALL_TESTS + OPT_IN_TESTS]
    if unknown or not names:
        raise BadInput(f"unknown test(s) {', '.join(unknown) or '(none)'}",
                       hint=f"choose from {','.join(ALL_TESTS + OPT_IN_TESTS)}")
    return names


def band_regions(size: int, fraction: float, block: int) -> dict[str, Region]:
    """The outer, middle and inner bands, each *fraction* of the target, block-aligned."""
    length = max(16 * block, int(size * fraction) // block * block)
    middle = (size - length) // 2 // block * block
    return {"outer": Region(0, length), "middle": Region(middle, length), "inner": Region(size - length, length)}


def zone_jobs(target: Target, options: BenchOptions, seconds: float) -> list[Job]:
    """One sequential read per evenly spaced point, from the outer edge to the inner edge."""
    points = max(2, options.zone_points)
    # up to 256 MiB per point (well over 16x any drive cache) and a quarter of the spacing at
    # most, so a point is a narrow zone; read once, never wrapped (a wrap adds a seek back)
    chunk = min(_ZONE_CHUNK, target.size_bytes // (4 * points)) // options.seq_block_size * options.seq_block_size
    chunk = max(chunk, options.seq_block_size)
    step = (target.size_bytes - chunk) / (points - 1)
    jobs = []
    for index in range(points):
        offset = int(index * step) // options.seq_block_size * options.seq_block_size
        # no warm-up: the first read's seek is left out of the rate (see streaming_rate)
        jobs.append(Job(f"zone.{index:02d}", "read", (Region(offset, chunk),), options.seq_block_size, seconds))
    return jobs


def _random(name: str, regions: tuple[Region, ...], options: BenchOptions, seconds: float, depth: int = 1) -> Job:
    ramp = min(1.0, 0.15 * seconds)
    return Job(name, "randread", regions, options.block_size, seconds - ramp, depth=depth, ramp_s=ramp)


_JOBS_PER_RUN = {"band": 3, "stroke": 1, "cross": 1, "commit": 1}
_MIN_JOB_S = 0.1


def jobs_per_run(test: str, options: BenchOptions) -> int:
    """How many jobs one run of *test* has."""
    if test == "zones":
        return max(2, options.zone_points)
    if test == "qd":
        return len(options.queue_depths)
    return _JOBS_PER_RUN[test]


def runs_for(test: str, options: BenchOptions, overhead_s: float) -> int:
    """Runs that fit the budget: start-up costs may take at most half of it (at least one run)."""
    fitting = int(options.budget_per_test_s / 2 / max(1e-9, jobs_per_run(test, options) * overhead_s))
    return max(1, min(options.runs, fitting))


def jobs_for(test: str, target: Target, options: BenchOptions, runs: int = 0, overhead_s: float = 0.0) -> list[Job]:
    """The jobs of one run of *test*, each sized to its share of the test's budget."""
    runs = runs or options.runs
    count = jobs_per_run(test, options)
    per_job = max(_MIN_JOB_S, options.budget_per_test_s / runs / count - overhead_s)
    per_run = per_job * count
    whole = (Region(0, target.size_bytes),)
    bands = band_regions(target.size_bytes, options.band_fraction, options.block_size)
    if test == "zones":
        return zone_jobs(target, options, per_run / max(2, options.zone_points))
    if test == "band":
        return [_random(f"band.{name}", (bands[name],), options, per_run / 3) for name in BANDS]
    if test == "stroke":
        return [_random("stroke", whole, options, per_run)]
    if test == "cross":
        return [_random("cross", (bands["outer"], bands["inner"]), options, per_run)]
    if test == "qd":
        share = per_run / len(options.queue_depths)
        return [_random(f"qd.{depth}", whole, options, share, depth=depth) for depth in options.queue_depths]
    if test == "commit":
        return [Job("commit", "commit", (Region(0, options.block_size),), options.block_size, per_run,
                    ramp_s=min(0.5, 0.1 * per_run))]
    raise BadInput(f"unknown test {test!r}")


def run_suite(
    engine: Engine,
    target: Target,
    options: BenchOptions,
    measurements: Measurements,
    stop: threading.Event,
    progress: Callable[[str, int, int], None] | None = None,
) -> None:
    """Run the selected tests, *runs* times each, recording results into *measurements*."""
    for test in options.tests:
        if test in ("commit", "smr") and not target.writable:
            measurements.notes.append(
                f"{test} test skipped: {target.path} is not a scratch file (the bench never writes to it); "
                "use --scratch-file on a filesystem of that disk"
            )
            continue
        if test == "smr":
            _run_smr(target, options, measurements, stop, progress)
            if stop.is_set():
                return
            continue
        runs = runs_for(test, options, engine.job_overhead_s)
        if runs < options.runs:
            measurements.notes.append(
                f"{test}: {runs} run(s) instead of {options.runs} to fit the budget with {engine.name}'s "
                f"start-up cost per job; raise --budget-per-test for the stability check"
            )
        for run in range(runs):
            if progress:
                progress(test, run, runs)
            jobs = jobs_for(test, target, options, runs, engine.job_overhead_s)
            for result in engine.run(target.path, jobs, stop):
                measurements.add(result)
                if test == "zones":
                    _record_zone(measurements, jobs, result, target.size_bytes)
            if stop.is_set():
                return
        measurements.finished_tests.append(test)
        if progress:
            progress(test, runs, runs)


def _run_smr(target: Target, options: BenchOptions, measurements: Measurements, stop: threading.Event,
             progress: Callable[[str, int, int], None] | None) -> None:
    """The SMR write test (its own writer: it stops at the cliff, which no fio job can)."""
    from advisor.bench.smr import write_probe

    if progress:
        progress("smr", 0, 1)
    measurements.write_cliff = write_probe(target, options.budget_per_test_s, stop)
    if not stop.is_set():
        measurements.finished_tests.append("smr")
    if progress:
        progress("smr", 1, 1)


def _record_zone(measurements: Measurements, jobs: list[Job], result: JobResult, size: int) -> None:
    """The zone's LBA fraction: the middle of the bytes read."""
    job = next(j for j in jobs if j.name == result.name)
    region = job.regions[0]
    read = min(region.length, result.ios * job.block_size)
    fraction = (region.offset + read / 2) / size
    previous = measurements.zone_fractions.get(result.name)
    measurements.zone_fractions[result.name] = fraction if previous is None else (previous + fraction) / 2
