"""A traced workload the drive model itself timed (a perfect disk), for the replay's tests.

Two areas at opposite edges, closed-loop random 8 KiB reads of five processes, timed by the
replay on the model: a trace of it must fit the model exactly, so any misfit a test makes
(slower times, another disk) is the test's own."""

from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np

from advisor.disk.replay import Stream, replay
from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.model import BlockTrace, DiskStatRate, Report, TraceLoss, Workload
from advisor.trace.codec import TRACE_ENCODING, ExtentTable, Requests, encode_extents, encode_requests
from tests.helpers.workloads import DISK_BYTES, AreaSpec, model, models, workload

NOW = dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.UTC)
ZONES = {"hot": (0.80, 0.82), "cold": (0.05, 0.07)}
READERS = {"hot": 4, "cold": 1}
PER_READER = 150


def base_workload() -> Workload:
    return workload([AreaSpec("hot", size_gb=10, read_iops=100, zone=ZONES["hot"]),
                     AreaSpec("cold", size_gb=10, read_iops=25, zone=ZONES["cold"])])


def model_made_requests(think_s: float = 0.1) -> Requests:
    """Closed-loop random 8 KiB reads of 5 processes, timed by the model itself (a perfect disk), each
    process waiting about *think_s* between a completion and its next issue (0: the disk never idles)."""
    rng = np.random.default_rng(7)
    offsets: list[np.ndarray] = []
    process: list[np.ndarray] = []
    for area, readers in READERS.items():
        lo, hi = (int(z * DISK_BYTES) for z in ZONES[area])
        for _ in range(readers):
            offsets.append(rng.integers(lo // 8192, hi // 8192, PER_READER) * 8192)
            process.append(np.full(PER_READER, len(process)))
    count = len(offsets) * PER_READER
    order = np.argsort(np.tile(np.arange(PER_READER), len(offsets)), kind="stable")  # interleave the processes
    offset = np.concatenate(offsets)[order].astype(np.int64)
    proc = np.concatenate(process)[order].astype(np.int64)
    issue = (np.arange(count) // len(offsets)).astype(np.float64) * 0.2  # a guess: each read done before the next
    guess = Stream(offset, np.full(count, 8192, dtype=np.int64), np.zeros(count, dtype=np.int64), proc,
                   issue, issue + 0.2 - think_s)
    timed = replay(model(DISK_BYTES), guess, DISK_BYTES)
    by_issue = np.argsort(timed.issue_s, kind="stable")  # a trace is in issue order
    return Requests(timed.issue_s[by_issue] + 100.0, timed.service_s[by_issue], offset[by_issue] // 512,
                    np.full(count, 16, dtype=np.int64), np.zeros(count, dtype=np.int64), proc[by_issue])


PHASE_BOUND_GAP_BYTES = 4 << 20
"""The two spots of :func:`phase_bound_stream`, this far apart in the hot area (a short seek)."""


def phase_bound_stream(count: int = 200) -> Stream:
    """Reads that alternate between two spots of the hot area, each issued by its own process a
    whole number of revolutions after the last, on an idle drive: every read to a spot finds the
    platter at the same angle, so the whole stream's mean time rests on the rotational phase
    the replay starts at (a single phase strays by about ±40 % from the mean over phases)."""
    turn_s = model(DISK_BYTES).revolution_ms / 1000.0
    spot = int(ZONES["hot"][0] * DISK_BYTES) // 8192 * 8192
    offset = np.where(np.arange(count) % 2 == 0, spot, spot + PHASE_BOUND_GAP_BYTES).astype(np.int64)
    issue = (np.arange(count) * 7 * turn_s).astype(np.float64)  # 7 turns apart: the drive is idle at each
    return Stream(offset, np.full(count, 8192, dtype=np.int64), np.zeros(count, dtype=np.int64),
                  np.arange(count, dtype=np.int64), issue, issue + 0.02)


def expected_requests(stream: Stream, phases: int = 64) -> Requests:
    """*stream* timed as the model expects it whatever the phase: each request's time the mean of
    its replays under *phases* phases spread over a revolution (a disk the model describes)."""
    runs = [replay(model(DISK_BYTES), stream, DISK_BYTES, phase=k / phases) for k in range(phases)]
    service = np.mean([run.service_s for run in runs], axis=0)
    return Requests(stream.issue_s + 100.0, service, stream.offset_bytes // 512, stream.length_bytes // 512,
                    stream.op, stream.process)


def traced(requests: Requests, work: Workload) -> BlockTrace:
    paths = tuple(rate.path for rate in work.rates)
    lo = [int(ZONES[path.split("/")[2]][0] * DISK_BYTES) for path in paths]
    hi = [int(ZONES[path.split("/")[2]][1] * DISK_BYTES) for path in paths]
    order = np.argsort(lo)
    table = ExtentTable(order.astype(np.int64), np.zeros(len(paths), dtype=np.int64),
                        np.array(lo, dtype=np.int64)[order], (np.array(hi) - np.array(lo)).astype(np.int64)[order])
    started = float(requests.issue_s.min())
    return BlockTrace(disk="sda", device_number="8:0", disk_size_bytes=DISK_BYTES, clock="mono", started_s=started,
                      ended_s=float(requests.complete_s.max()), interval_s=float(np.ptp(requests.complete_s)),
                      requests=len(requests), encoding=TRACE_ENCODING, data=encode_requests(requests, started),
                      files=paths, extents=encode_extents(table), mapped_requests=len(requests),
                      loss=TraceLoss(diskstats_requests=len(requests), traced_completions=len(requests),
                                     missing_requests=0))


QUIET_UTIL = 0.3
"""The kernel saw the disk busy 30 % of the interval: the aggregate model, one IO at a time, charges
the same reads about 126 %, more than DISK_TIME_SLACK x 30 %: refuted without a trace."""


def quiet_disk() -> Workload:
    reads = sum(rate.read_iops for rate in base_workload().rates)
    stats = (DiskStatRate("sda", reads, 0.0, reads * 8192 / 1e6, 0.0, 8.0, 0.0, QUIET_UTIL),)
    return dataclasses.replace(base_workload(), diskstats=stats)


def quiet_disk_report(requests: Requests | None, min_gain: float = 0.05) -> Report:
    """The quiet disk's report, with the trace of *requests* when given (the replay then judges)."""
    work = quiet_disk()
    traces = (traced(requests, work),) if requests is not None else ()
    return advise(AdviceRequest(dataclasses.replace(work, traces=traces), models(), PlanOptions(min_gain=min_gain),
                  generated_at=NOW))
