"""The reset rules that fire are codes on the workload (``Workload.resets``), beside their words."""

from __future__ import annotations

from advisor.rates.workload import diff
from tests.helpers.counters import fio, server, snap


def test_a_restart_and_a_failover_are_named_by_their_rules() -> None:
    a = snap("2026-11-21T09:00:00+00:00", (fio("1/1", 10),))
    b = snap("2026-11-21T09:05:00+00:00", (fio("1/1", 20),),
             server(started_at="2026-11-21T09:02:00+00:00", in_recovery=True))
    work = diff(a, b, allow_reset=True)
    assert work.resets == ("recovery", "restart")
    assert [w.split(":", 1)[0] for w in work.warnings[:2]] == ["recovery", "restart"]  # the words still say it


def test_a_quiet_interval_has_no_reset() -> None:
    a = snap("2026-11-21T09:00:00+00:00", (fio("1/1", 10),))
    b = snap("2026-11-21T09:05:00+00:00", (fio("1/1", 20),))
    assert diff(a, b).resets == ()
