"""Whose requests a replay served: per database, per server process serving none, and the kernel's."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.engine.replay_issuers import (
    NOT_NAMED,
    Timelines,
    client_sessions,
    common_window,
    issuer_rows,
    named_issuer_rows,
    per_request_ms,
    session_rate,
    windowed_requests,
)
from advisor.model import ReplayIssuer, TraceProcess
from advisor.trace.codec import FLUSH, READ, WRITE, Requests
from tests.helpers.commit_waits import READERS, commit_requests, processes
from tests.helpers.model_trace import NOW, quiet_disk, traced
from tests.helpers.workloads import models

PROCESSES = (
    TraceProcess(10, "postgres", "ledger", "client backend"),
    TraceProcess(11, "postgres", "catalogue", "client backend"),
    TraceProcess(12, "postgres", "ledger", "parallel worker"),
    TraceProcess(13, "postgres", None, "checkpointer"),
    TraceProcess(14, "kworker/0:1H"),  # the block layer's flush worker: never one of the server's
    TraceProcess(15, "jbd2/sda1-8"),
)
# the ledger commits (write, then a flush the kworker issues), the catalogue reads, the parallel
# worker reads for the ledger, the checkpointer writes, the journal writes
PROCESS = np.array([0, 4, 1, 2, 3, 5, 1])
OP = np.array([WRITE, FLUSH, READ, READ, WRITE, WRITE, READ])
OWNERS = np.array([-1, 0, -1, -1, -1, -1, -1])  # the flush follows the ledger's write
DATA = OP != FLUSH
MEASURED = np.array([2.0, 10.0, 8.0, 4.0, 1.0, 3.0, 6.0]) / 1000
TODAY = [MEASURED * 0.9, MEASURED * 1.1]  # two phases
PLANNED = [MEASURED * 0.45, MEASURED * 0.55]


def _rows(planned: list[np.ndarray] | None = PLANNED) -> dict[str, object]:
    rows = issuer_rows(PROCESSES, PROCESS, OWNERS, DATA, OP == FLUSH, MEASURED, TODAY, planned)
    return {r.issuer: r for r in rows}


def test_a_database_holds_its_sessions_requests_and_the_flushes_their_writes_own() -> None:
    rows = _rows()
    ledger = rows["ledger"]
    assert ledger.kind == "database" and ledger.processes == 1 and ledger.requests == 1 and ledger.flushes == 1
    # the write (2 ms) and its flush (10 ms), per write
    assert ledger.measured_ms == pytest.approx(12.0)
    assert ledger.replayed_ms == pytest.approx(12.0)  # the mean of the two phases (0.9 and 1.1 times)
    assert ledger.planned_ms == pytest.approx(6.0) and ledger.deviation == pytest.approx(0.0)
    worker = rows["ledger (parallel worker)"]  # not taken for the sessions that wait on it
    assert worker.kind == "database" and worker.requests == 1 and worker.measured_ms == pytest.approx(4.0)
    catalogue = rows["catalogue"]
    assert (catalogue.requests, catalogue.processes, catalogue.measured_ms) == (2, 1, pytest.approx(7.0))


def test_a_server_process_serving_no_database_and_the_kernels_threads_are_their_own_rows() -> None:
    rows = _rows()
    assert rows["checkpointer"].kind == "server process" and rows["checkpointer"].requests == 1
    kernel = rows[NOT_NAMED]
    assert kernel.kind == "not named" and kernel.requests == 1 and kernel.measured_ms == pytest.approx(3.0)
    assert "kworker/0:1H" not in rows  # the flush worker's request is the ledger's


def test_rows_come_most_measured_time_first_and_without_a_plan_have_no_planned_time() -> None:
    rows = issuer_rows(PROCESSES, PROCESS, OWNERS, DATA, OP == FLUSH, MEASURED, TODAY, None)
    assert [r.issuer for r in rows] == ["catalogue", "ledger", "ledger (parallel worker)", NOT_NAMED,
                                        "checkpointer"]
    assert all(r.planned_ms is None for r in rows)


def test_a_trace_whose_processes_nobody_named_has_no_rows() -> None:
    unnamed = tuple(TraceProcess(p.pid, p.comm) for p in PROCESSES)
    assert issuer_rows(unnamed, PROCESS, OWNERS, DATA, OP == FLUSH, MEASURED, TODAY, PLANNED) == ()


def test_a_process_column_that_does_not_index_the_table_gives_no_rows_rather_than_fail() -> None:
    short = PROCESSES[:3]  # the trace's column names processes 3-5 too
    assert issuer_rows(short, PROCESS, OWNERS, DATA, OP == FLUSH, MEASURED, TODAY, PLANNED) == ()


def test_a_database_gets_its_rate_measured_replayed_and_planned_and_a_server_process_none() -> None:
    issue = np.arange(7, dtype=float)
    measured = (issue, issue + MEASURED)
    # the ledger's session: one write, active 2 ms; replayed 2.2 ms and 1.8 ms, planned 1 ms
    # the client sessions' requests per database (each alone here: the two never worked at once); the parallel
    # worker reads for the ledger but is no session: no rate of its own

    def rows_with(sessions: dict[str, np.ndarray]) -> dict[str, ReplayIssuer]:
        timelines = Timelines(measured, [(issue, issue + t) for t in TODAY],
                              [(issue, issue + t) for t in PLANNED], sessions)
        return {r.issuer: r for r in issuer_rows(PROCESSES, PROCESS, OWNERS, DATA, OP == FLUSH, MEASURED, TODAY,
                                                 PLANNED, timelines=timelines)}

    rows = rows_with({"ledger": PROCESS == 0})
    ledger = rows["ledger"]
    assert ledger.measured_rate == pytest.approx(500.0)  # 1 write in 2 ms of its session
    assert ledger.replayed_rate == pytest.approx((1 / 0.0018 + 1 / 0.0022) / 2, abs=1e-3)
    assert ledger.planned_rate == pytest.approx((1 / 0.0009 + 1 / 0.0011) / 2, abs=1e-3)
    assert rows["catalogue"].measured_rate is None  # not among the sessions given: no rate
    catalogue = rows_with({"catalogue": PROCESS == 1})["catalogue"]  # two reads, 6 s apart: first to last
    assert catalogue.measured_rate == pytest.approx(2 / (6.006 - 2.0), abs=1e-4)
    assert rows["checkpointer"].measured_rate is None and rows[NOT_NAMED].planned_rate is None
    assert rows["ledger (parallel worker)"].measured_rate is None
    without = {r.issuer: r for r in issuer_rows(PROCESSES, PROCESS, OWNERS, DATA, OP == FLUSH, MEASURED, TODAY,
                                                PLANNED)}
    assert without["ledger"].measured_rate is None  # no timelines: no rate


def test_rates_of_databases_sharing_a_disk_count_only_while_both_work() -> None:
    # two databases, one session each: "fast" ends its traced work at 4 s, "slow" works until 10 s;
    # alone after 4 s, "slow" would read at twice its pace (the disk to itself), which no layout
    # gives it while "fast" keeps working, so its rate counts from 0 to 4 s only
    processes = (TraceProcess(1, "postgres", "fast", "client backend"),
                 TraceProcess(2, "postgres", "slow", "client backend"),
                 TraceProcess(3, "postgres", "slow", "parallel worker"))
    fast_issue = np.arange(0.0, 4.0, 0.5)  # 8 reads, 0.5 s each
    slow_issue = np.r_[np.arange(0.0, 4.0, 1.0), np.arange(4.0, 10.0, 0.5)]  # 4 reads to 4 s, then 12
    worker_issue = np.array([1.0])  # a worker inside the session: not a session of its own
    issue = np.r_[fast_issue, slow_issue, worker_issue]
    complete = np.r_[fast_issue + 0.5, slow_issue + np.r_[np.full(4, 1.0), np.full(12, 0.5)], worker_issue + 0.1]
    process = np.r_[np.zeros(8), np.ones(16), [2]].astype(np.int64)
    data = np.ones(len(issue), dtype=bool)
    names = np.array(["fast"] * 8 + ["slow"] * 16 + ["slow (parallel worker)"], dtype=object)
    found = client_sessions(processes, process, names, data)
    assert {db: int(m.sum()) for db, m in found.items()} == {"fast": 8, "slow": 16}  # the worker is not a session
    sessions = list(found.values())
    times = (issue, complete)
    window = common_window(process, sessions, times)
    assert window is not None and window.tolist() == [[0.0, 4.0]]
    slow = names == "slow"
    assert session_rate(process, slow, times, sessions) == pytest.approx(1.0)  # 4 reads in 4 s
    assert session_rate(process, slow, times) == pytest.approx(1.6)  # 16 in 10 s: the lone 6 s count
    assert session_rate(process, names == "fast", times, sessions) == pytest.approx(2.0)
    # one database: its own sessions' time, as without the window
    assert session_rate(process, slow, times, sessions[1:]) == pytest.approx(1.6)


def test_the_common_window_of_many_short_sessions_is_where_both_databases_work() -> None:
    # a connection per transaction: each database runs 3,000 sessions of one request, 0.5 s each, one a
    # second; the second database's start 0.25 s later, so the two overlap 0.25 s of every second
    starts = np.arange(3000, dtype=float)
    issue = np.r_[starts, starts + 0.25]
    complete = issue + 0.5
    process = np.arange(6000, dtype=np.int64)
    sessions = [process < 3000, process >= 3000]
    window = common_window(process, sessions, (issue, complete))
    assert window is not None and len(window) == 3000
    assert float((window[:, 1] - window[:, 0]).sum()) == pytest.approx(3000 * 0.25)
    # the first database's requests complete at the window's ends: 3,000 in 750 session-seconds
    assert session_rate(process, sessions[0], (issue, complete), sessions) == pytest.approx(4.0)
    # the second's complete 0.25 s after each window closes: none counted in it
    assert session_rate(process, sessions[1], (issue, complete), sessions) == pytest.approx(0.0)


def test_a_shared_disks_times_are_taken_while_every_database_works() -> None:
    # "fast" ends its traced work at 4 s; "slow" reads 1 s a read while both work, 0.5 s once alone: a
    # replay that keeps each database's traced work gives it the drive alone, no measured run does
    processes = (TraceProcess(1, "postgres", "fast", "client backend"),
                 TraceProcess(2, "postgres", "slow", "client backend"))
    fast_issue = np.arange(0.0, 4.0, 0.5)
    slow_issue = np.r_[np.arange(0.0, 4.0, 1.0), np.arange(4.0, 10.0, 0.5)]
    issue = np.r_[fast_issue, slow_issue]
    service = np.r_[np.full(8, 0.5), np.full(4, 1.0), np.full(12, 0.5)]
    process = np.r_[np.zeros(8), np.ones(16)].astype(np.int64)
    data = np.ones(len(issue), dtype=bool)
    names = np.array(["fast"] * 8 + ["slow"] * 16, dtype=object)
    sessions = client_sessions(processes, process, names, data)
    measured = (issue, issue + 1.0)  # traced, "fast" ended at 4.5 s: slow's later requests count in no window
    today = (issue, issue + service)
    timelines = Timelines(measured, [today], [today], sessions)
    within = windowed_requests(process, timelines)
    assert within.today[0] is not None and int(within.today[0].sum()) == 8 + 4  # completed by 4 s
    assert within.measured is not None and bool(within.measured[names == "slow"].all()) is False
    slow, none = names == "slow", np.zeros(len(issue), dtype=bool)
    assert per_request_ms([service], slow, none) == pytest.approx(625.0)  # (4 x 1 s + 12 x 0.5 s) / 16
    assert per_request_ms([service], slow, none, within.today) == pytest.approx(1000.0)  # while both work
    found = (names, {"fast": "database", "slow": "database"})
    rows = {r.issuer: r for r in named_issuer_rows(found, process, data, none, service, [service], [service],
                                                   timelines=timelines, within=within)}
    assert rows["slow"].replayed_ms == pytest.approx(1000.0) and rows["slow"].planned_ms == pytest.approx(1000.0)
    # a third database's probe, one request at 6 s: it was at work for a moment, and does not shrink the window
    probe_process = np.r_[process, [2]]
    probe_issue, probe_service = np.r_[issue, [6.0]], np.r_[service, [0.1]]
    probe_sessions = {db: np.r_[m, [False]] for db, m in sessions.items()}
    probe_sessions["probe"] = np.r_[np.zeros(len(issue), dtype=bool), [True]]
    probed = windowed_requests(probe_process, Timelines(
        (probe_issue, probe_issue + np.r_[np.ones(len(issue)), [0.1]]), [(probe_issue, probe_issue + probe_service)],
        None, probe_sessions))
    assert probed.today[0] is not None and probed.today[0][:-1].tolist() == within.today[0].tolist()
    # one database on the disk: no window, every request counts
    alone = windowed_requests(process, Timelines(measured, [today], None, {"slow": sessions["slow"]}))
    assert alone.measured is None and alone.today[0] is None and alone.planned is None


def test_a_report_on_a_shared_disk_times_its_areas_while_both_databases_work() -> None:
    # the ledger commits through the first half of the trace only; the catalogue reads on alone after it
    requests = commit_requests()
    middle = (requests.issue_s.min() + requests.issue_s.max()) / 2
    keep = ~((requests.process == READERS) & (requests.issue_s > middle))
    cut = Requests(*(None if getattr(requests, f.name) is None else getattr(requests, f.name)[keep]
                     for f in dataclasses.fields(requests)))
    work = quiet_disk()
    trace = dataclasses.replace(traced(cut, work), processes=processes())
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(trace,)), models(), PlanOptions(min_gain=0.0),
                                  generated_at=NOW))
    (check,) = report.replay
    done = cut.issue_s + cut.service_s
    ledger = cut.process == READERS
    catalogue = ~ledger
    inside = catalogue & (done >= cut.issue_s[ledger].min()) & (done <= done[ledger].max())
    expected, everything = cut.service_s[inside].mean() * 1000, cut.service_s[catalogue].mean() * 1000
    assert abs(expected / everything - 1) > 0.1  # alone, its reads were served faster: the window matters here
    areas = {a.area: a for a in check.areas}
    issuers = {r.issuer: r for r in check.issuers}
    assert areas["cold"].measured_ms == pytest.approx(expected, rel=1e-3)
    assert issuers["catalogue"].measured_ms == pytest.approx(expected, rel=1e-3)
    assert areas["cold"].requests == int(catalogue.sum())  # every request is the area's; the times are the window's
