"""The replay's per-area rows count the cache flushes their writes own, measured and replayed
alike, and the self-check compares reads, writes and flushes on both sides."""

from __future__ import annotations

import dataclasses

import numpy as np

from advisor.disk.emulator.timing import sized_model
from advisor.disk.mechanism import Mechanism
from advisor.engine.advise import AdviceRequest, advise
from advisor.trace.codec import Requests
from tests.helpers.model_trace import NOW, ZONES, base_workload, traced
from tests.helpers.workloads import DISK_BYTES, model, models

COMMITS = 120


def commits_and_reads() -> Requests:
    """A backend committing in the hot area (write, the worker's flush) and a reader of the
    cold area, one after the other, timed by the model's own mechanism (a perfect disk)."""
    mech = Mechanism(sized_model(model(DISK_BYTES), DISK_BYTES), seed=0)
    rng = np.random.default_rng(3)
    hot = int(ZONES["hot"][0] * DISK_BYTES) // 8192 * 8192
    cold_lo, cold_hi = (int(z * DISK_BYTES) // 8192 for z in ZONES["cold"])
    rows: list[tuple[float, float, int, int, int, int]] = []  # issue, done, byte, length, op, process
    t = 0.0
    for k in range(COMMITS):
        done = mech.service("write", hot + k * 8192, 8192, t)
        rows.append((t, done, hot + k * 8192, 8192, 1, 0))
        flushed = mech.service("flush", 0, 0, done + 3e-5)
        rows.append((done + 3e-5, flushed, 0, 0, 2, 9))
        offset = int(rng.integers(cold_lo, cold_hi)) * 8192
        read = mech.service("read", offset, 8192, flushed + 1e-3)
        rows.append((flushed + 1e-3, read, offset, 8192, 0, 1))
        t = read + 1e-3
    issue, done, byte, length, op, process = (np.array(col) for col in zip(*rows, strict=True))
    return Requests(issue + 100.0, done - issue, byte.astype(np.int64) // 512, length.astype(np.int64) // 512,
                    op.astype(np.int64), process.astype(np.int64))


def test_an_area_row_holds_the_flushes_of_its_writes() -> None:
    work = base_workload()
    requests = commits_and_reads()
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(traced(requests, work),)), models(),
                                  generated_at=NOW))
    (check,) = report.replay
    assert check.refused is None and check.fits, check
    assert check.deviation is not None and abs(check.deviation) < 0.01
    areas = {a.area: a for a in check.areas}
    hot, cold = areas["hot"], areas["cold"]
    assert (hot.requests, hot.flushes, cold.requests, cold.flushes) == (COMMITS, COMMITS, COMMITS, 0)
    writes, flushes = requests.op == 1, requests.op == 2
    per_commit_ms = (requests.service_s[writes].sum() + requests.service_s[flushes].sum()) / COMMITS * 1000
    assert abs(hot.measured_ms - per_commit_ms) < 1e-3
    assert hot.measured_ms > 2 * requests.service_s[writes].mean() * 1000  # the flush is most of a commit
    assert abs(hot.replayed_ms / hot.measured_ms - 1) < 0.01  # the same quantity on both sides
    # the self-check compares reads, writes and flushes, on both sides
    assert abs(check.measured_ms - requests.service_s.mean() * 1000) < 1e-3  # the trace keeps microseconds
    assert check.measured_ms > requests.service_s[requests.op != 2].mean() * 1000 * 1.2


def test_a_trace_of_the_first_encoding_compares_reads_and_writes_alone() -> None:
    work = base_workload()
    requests = commits_and_reads()
    trace = dataclasses.replace(traced(requests, work), encoding="advisor-trace-1")  # same columns, no FUA set
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(trace,)), models(), generated_at=NOW))
    (check,) = report.replay
    assert any("advisor-trace-1" in note and f"{COMMITS} flushes" in note for note in check.notes), check.notes
    assert abs(check.measured_ms - requests.service_s[requests.op != 2].mean() * 1000) < 1e-3
    assert {a.area: a.flushes for a in check.areas} == {"hot": 0, "cold": 0}
