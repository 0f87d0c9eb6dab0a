"""A workload traced on several disks: a request that waited for another disk goes out when the trace issued it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from advisor.disk.replay import replay
from advisor.disk.replay_stream import OPS, Stream, causes
from advisor.engine.replay_today import SelfCheck, caused_elsewhere, self_check, self_checks
from advisor.model import BlockTrace, HostLayout, TraceProcess, Workload
from advisor.trace.codec import Requests
from advisor.trace.cross_disk import latest_elsewhere
from advisor.trace.soundness import Assessment, assess
from tests.helpers.model_trace import base_workload, traced
from tests.helpers.workloads import DISK_BYTES, model, models

READ, WRITE, FLUSH = (OPS.index(op) for op in ("read", "write", "flush"))


def _stream(op: list[int], process: list[int], issue: list[float], complete: list[float],
            elsewhere_s: list[float] | None) -> Stream:
    count = len(op)
    return Stream(np.arange(count, dtype=np.int64) * (1 << 20), np.where(np.array(op) == FLUSH, 0, 8192),
                  np.array(op, dtype=np.int64), np.array(process, dtype=np.int64), np.array(issue),
                  np.array(complete), None, None if elsewhere_s is None else np.array(elsewhere_s))


def test_a_request_after_the_process_went_to_another_disk_has_no_cause_here() -> None:
    # process 0 reads here (0-1 s), then on the other disk (done at 1.5 s), then here again at 2 s
    plain = _stream([READ, READ], [0, 0], [0.0, 2.0], [1.0, 3.0], None)
    assert causes(plain)[0].tolist() == [-1, 0]  # one disk alone: the think time holds the other disk's visit
    crossed = _stream([READ, READ], [0, 0], [0.0, 2.0], [1.0, 3.0], [-np.inf, 1.5])
    assert causes(crossed)[0].tolist() == [-1, -1]  # it waited for the other disk: issued when traced
    # the other disk's last completion came before this disk's: the cause here stands
    earlier = _stream([READ, READ], [0, 0], [0.0, 2.0], [1.0, 3.0], [-np.inf, 0.5])
    assert causes(earlier)[0].tolist() == [-1, 0]


def test_a_flush_keeps_its_write_and_a_request_in_flight_is_no_longer_paced_by_it() -> None:
    # a write, the flush the kernel's worker (process 1) issues for it; the worker also flushed the other disk later
    stream = _stream([WRITE, FLUSH], [0, 1], [0.0, 1.1], [1.0, 1.5], [-np.inf, 1.05])
    assert causes(stream)[0].tolist() == [-1, 0]  # the flush still follows its write
    # issued while its previous request was in flight, after a completion on the other disk: not paced by it
    overlapping = _stream([READ, READ], [0, 0], [0.0, 0.5], [1.0, 1.5], [-np.inf, 0.4])
    assert causes(overlapping)[1].tolist() == [-1, -1]
    assert causes(_stream([READ, READ], [0, 0], [0.0, 0.5], [1.0, 1.5], None))[1].tolist() == [-1, 0]


def test_the_replay_issues_such_a_request_at_its_traced_time() -> None:
    # the drive serves the first read in a few ms, far sooner than traced: with the think time held as traced
    # the second read comes early; waiting for the other disk, it comes when the trace had it
    stream = _stream([READ, READ], [0, 0], [0.0, 2.0], [1.0, 3.0], None)
    early = replay(model(DISK_BYTES), stream, DISK_BYTES, phase=0.0)
    assert early.issue_s[1] == pytest.approx(early.complete_s[0] + 1.0)
    crossed = dataclasses.replace(stream, elsewhere_s=np.array([-np.inf, 1.5]))
    assert replay(model(DISK_BYTES), crossed, DISK_BYTES, phase=0.0).issue_s[1] == pytest.approx(2.0)


def test_latest_elsewhere_takes_each_pid_its_own_latest_completion_before_the_issue() -> None:
    others = [(np.array([7, 7, 9]), np.array([1.0, 4.0, 2.0])), (np.array([7]), np.array([2.5]))]
    found = latest_elsewhere(np.array([7, 7, 9, 8]), np.array([3.0, 5.0, 1.0, 9.0]), others)
    assert found.tolist() == [2.5, 4.0, -np.inf, -np.inf]
    assert latest_elsewhere(np.array([7]), np.array([3.0]), []).tolist() == [-np.inf]


def _two_disks() -> tuple[Workload, Requests]:
    """A workload traced on sda and sdb on one clock: pid 100 reads on both."""
    work = base_workload()
    assert work.layout is not None
    sda = work.layout.devices[0]
    work = dataclasses.replace(work, layout=dataclasses.replace(
        work.layout, devices=(sda, dataclasses.replace(sda, name="sdb", path="/dev/sdb"))))
    # two readers here (pids 100, 101); on the other disk pid 100 completes a request at 100.5 s
    here = Requests(np.array([100.0, 101.0, 101.0]), np.array([0.01, 0.01, 0.01]), np.array([8, 16, 24]),
                    np.full(3, 16), np.zeros(3, dtype=np.int64), np.array([0, 0, 1]))
    there = Requests(np.array([100.4]), np.array([0.1]), np.array([8]), np.full(1, 16), np.zeros(1, dtype=np.int64),
                     np.array([0]))
    names = (TraceProcess(100, "postgres"), TraceProcess(101, "postgres"))
    first = dataclasses.replace(traced(here, work), processes=names)
    second = dataclasses.replace(traced(there, work), disk="sdb", processes=(TraceProcess(100, "postgres"),))
    return dataclasses.replace(work, traces=(first, second)), here


def test_the_workloads_other_traces_on_the_same_clock_give_the_times_and_one_disk_gives_none() -> None:
    both, here = _two_disks()
    work, (first, second) = both, both.traces
    times = caused_elsewhere(first, here, both)
    assert times is not None and times.tolist() == [-np.inf, pytest.approx(100.5), -np.inf]
    assert caused_elsewhere(first, here, dataclasses.replace(work, traces=(first,))) is None
    other_clock = dataclasses.replace(second, clock="boot")
    assert caused_elsewhere(first, here, dataclasses.replace(work, traces=(first, other_clock))) is None
    unnamed = dataclasses.replace(first, processes=())  # a process column that names no pid: nothing to match
    assert caused_elsewhere(unnamed, here, dataclasses.replace(work, traces=(unnamed, second))) is None


def test_the_self_checks_of_a_workload_assess_each_trace_once(monkeypatch: pytest.MonkeyPatch) -> None:
    both, _ = _two_disks()
    one_by_one = [self_check(trace, both, models().of(trace.disk)) for trace in both.traces]
    decoded: list[str] = []

    def counted(trace: BlockTrace, layout: HostLayout | None) -> Assessment:
        decoded.append(trace.disk)
        return assess(trace, layout)

    monkeypatch.setattr("advisor.engine.replay_today.assess", counted)
    together = self_checks(both, models().of)
    assert sorted(decoded) == ["sda", "sdb"]  # one each, where one by one each also decoded the other
    for alone, checked in zip(one_by_one, together, strict=True):
        assert isinstance(alone, SelfCheck) and isinstance(checked, SelfCheck)
        assert (alone.replayed_ms, alone.measured_ms) == (checked.replayed_ms, checked.measured_ms)
