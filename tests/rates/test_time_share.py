"""One IO share of DB time: cumulative times go through the counters' reset rule, stated ones stay.

A cumulative DB time that went backwards (an Oracle instance restart between two samples) is
a reset: the later reading is the time since, the share is computed from it and a note says
so; it is never a negative time and never silently unknown.
"""

from __future__ import annotations

from advisor.collectors.oracle.server import wait_profile
from advisor.model import Snapshot, WaitProfile
from advisor.rates.io_share import RESET_NOTE, cumulative_wait, interval_times, time_share
from advisor.rates.workload import diff
from tests.helpers.counters import fio, server, snap


def _oracle(at: str, db_s: float, io_s: float, started: str = "2026-01-01T00:00:00+00:00") -> Snapshot:
    return snap(at, (fio("data:1", 10),), server("oracle", started_at=started),
                wait=WaitProfile(io_wait_share=io_s / db_s, db_time_s=db_s, io_wait_s=io_s, source="oracle"))


def test_an_oracle_interval_diffs_its_cumulative_times() -> None:
    a = _oracle("2026-11-21T09:00:00+00:00", 1000.0, 100.0)
    b = _oracle("2026-11-21T09:05:00+00:00", 1600.0, 400.0)
    wait = diff(a, b).wait
    assert (wait.db_time_s, wait.io_wait_s, wait.io_wait_share) == (600.0, 300.0, 0.5)
    assert RESET_NOTE not in wait.notes


def test_a_restart_between_the_samples_is_a_reset_never_a_negative_time_or_none() -> None:
    a = _oracle("2026-11-21T09:00:00+00:00", 1000.0, 100.0)
    b = _oracle("2026-11-21T09:05:00+00:00", 200.0, 50.0, started="2026-11-21T09:02:00+00:00")
    wait = diff(a, b, allow_reset=True).wait
    assert (wait.db_time_s, wait.io_wait_s, wait.io_wait_share) == (200.0, 50.0, 0.25)
    assert RESET_NOTE in wait.notes
    db_time, io_time, reset = interval_times(1000.0, 1500.0, 300.0, 20.0)  # only the IO wait went back
    assert (db_time, io_time, reset) == (500.0, 20.0, True)  # never 20 - 300


def test_the_shares_are_one_rule() -> None:
    assert time_share(200.0, 50.0) == 0.25 and time_share(0.0, 0.0) is None and time_share(None, 1.0) is None
    sampled = WaitProfile(io_wait_share=0.4, samples=10)
    assert cumulative_wait(WaitProfile(), sampled) is sampled  # a sampled share comes from the later sample
    assert wait_profile([], [], timed=False).io_wait_share is None  # TIMED_STATISTICS off: no times, no share
