"""The verdict's two rules on splits whose disk and host times are known exactly.

Each split is what :func:`split_run` makes of a run of 1,000 transactions whose time is
``disk + host`` ms each; the rules then decide from the host's share and the host's own time.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.demo.summary import Measurement, gains_between, verdict_line
from advisor.demo.timesplit import COVERAGE_TOLERANCE, TimeSplit, Verdict, judge, split_run
from advisor.disk.emulator.iotrace import IoTrace, TraceRecord

TRANSACTIONS = 1000


def _trace(disk_ms: float, host_ms: float, clients: int = 1) -> IoTrace:
    """One read per transaction: the host's part, then the modelled disk's, back to back.

    With *clients* the disk and the host serve one client at a time, so the wall clock moves
    1/clients of each transaction's time per transaction."""
    records, now = [], 100.0
    for _ in range(TRANSACTIONS):
        now += host_ms / 1000 / clients
        records.append(TraceRecord("read", 0, 8192, now, now + disk_ms / 1000 / clients, disk_ms / 1000 / clients))
        now += disk_ms / 1000 / clients
    return IoTrace(tuple(records))


def _run(disk_ms: float, host_ms: float, *, clients: int = 1, latency_ms: float | None = None,
         read_latency_ms: float | None = None) -> tuple[Measurement, TimeSplit]:
    """A run whose pgbench figures are disk + host ms per transaction, unless *latency_ms* or
    *read_latency_ms* say otherwise (what pgbench measured beside what the trace saw)."""
    latency = disk_ms + host_ms if latency_ms is None else latency_ms
    read = latency if read_latency_ms is None else read_latency_ms
    # the trace starts at the first arrival: pgbench's clock also counts the host part before it
    measurement = Measurement(tps=1000 * clients / latency, latency_ms=latency, read_latency_ms=read,
                              commit_latency_ms=None, transactions=TRANSACTIONS,
                              seconds=TRANSACTIONS * latency / 1000 / clients,
                              statements={"SELECT abalance FROM pgbench_accounts WHERE aid = :aid1;": read},
                              clients=clients)
    return measurement, split_run(_trace(disk_ms, host_ms, clients), measurement)


def _judge(before: tuple[Measurement, TimeSplit], after: tuple[Measurement, TimeSplit]) -> Verdict:
    return judge(before[1], after[1], gains_between(before[0], after[0]))


def test_split_adds_up_and_names_the_parts() -> None:
    measurement, split = _run(8.0, 2.0)
    assert split.disk_s == pytest.approx(8.0)
    assert split.host_s == pytest.approx(2.0 - 0.002)  # the host part before the first read is not traced
    assert split.host_share == pytest.approx(0.2, abs=1e-3)
    assert split.transaction_disk_ms == pytest.approx(8.0) and split.read_disk_ms == pytest.approx(8.0)
    assert split.read_host_ms == pytest.approx(2.0) and split.reads_per_select == 1


@pytest.mark.parametrize("host_ms", [0.5, 2.0, 6.0])
def test_the_same_host_time_always_passes(host_ms: float) -> None:
    verdict = _judge(_run(8.0, host_ms), _run(5.0, host_ms))
    assert verdict.valid, verdict


def test_a_share_that_moves_more_than_the_gain_fails() -> None:
    # disk 8 -> 5 ms, host 2 -> 4 ms: 10 -> 9 ms, 10 % saved; the host's share 20 % -> 44 %
    verdict = _judge(_run(8.0, 2.0), _run(5.0, 4.0))
    assert not verdict.valid
    assert "share per run went from 20.0% to 44.4% (+24.4 points), more than the +10.0%" in verdict.reason


def test_the_share_rule_alone_can_fail() -> None:
    # disk 10 -> 1 ms, host 1 -> 3 ms: 11 -> 4 ms, 63.6 % saved; the host's part (-18 points) is
    # under half of it, but its share went from 9 % to 75 %, 66 points
    verdict = _judge(_run(10.0, 1.0), _run(1.0, 3.0))
    assert not verdict.valid
    assert verdict.checks[0].host_part is not None and abs(verdict.checks[0].host_part) < 0.5 * 0.636
    assert "(+65.9 points), more than the +63.6%" in verdict.reason


def test_a_loss_the_host_made_fails_though_its_share_moved_less_than_the_loss() -> None:
    # disk 8 -> 7 ms, host 2 -> 39 ms: the share moves 65 points, the time grows by 360 % (the host's
    # 370 % counts only the traced host time: the part before the first read is outside the trace)
    verdict = _judge(_run(8.0, 2.0), _run(7.0, 39.0))
    assert not verdict.valid
    assert "own time per transaction changed by +369.6% of the time before (2.00 -> 38.96 ms), more than half " \
        "the +360.0% the time" in verdict.reason


def test_an_untraced_run_cannot_be_judged() -> None:
    before = _run(8.0, 2.0)
    empty = split_run(IoTrace(()), before[0])
    verdict = judge(before[1], empty, gains_between(before[0], before[0]))
    assert not verdict.valid and "no traced requests" in verdict.reason


def test_a_gain_the_host_made_fails_though_its_share_fell_by_less_than_the_gain() -> None:
    # the run before was the busy one: disk 8 -> 7 ms, host 8 -> 2 ms; 16 -> 9 ms is 43.8 % saved,
    # of which the disk's part is 6.3 points; the host's share falls 28 points, less than the gain
    verdict = _judge(_run(8.0, 8.0), _run(7.0, 2.0))
    assert not verdict.valid
    run = verdict.checks[0]
    assert run.disk_part == pytest.approx(1 / 16) and run.host_part == pytest.approx(6 / 16, abs=1e-3)
    assert "more than half the -43.8% the time per transaction changed" in verdict.reason


def test_a_host_change_under_half_the_gain_passes() -> None:
    # disk 16 -> 10 ms, host 2 -> 3 ms: 18 -> 13 ms, 27.8 % saved; the host took 5.6 points back
    verdict = _judge(_run(16.0, 2.0), _run(10.0, 3.0))
    assert verdict.valid, verdict
    assert verdict.checks[0].host_part == pytest.approx(-1 / 18, abs=1e-3)


def test_a_gain_no_trace_saw_fails() -> None:
    # the same disk (8 ms) and host (2 ms) time in both runs, each run's trace within the 10 % it may
    # miss, but pgbench measured 11.1 ms before and 9.1 ms after: an 18 % gain the disk did not make
    before, after = _run(8.0, 2.0, latency_ms=11.1), _run(8.0, 2.0, latency_ms=9.1)
    assert before[1].unaccounted_s / before[1].measured_s < COVERAGE_TOLERANCE
    assert -after[1].unaccounted_s / after[1].measured_s < COVERAGE_TOLERANCE
    verdict = _judge(before, after)
    assert not verdict.valid
    run = verdict.checks[0]
    assert run.cause == "untraced" and run.claimed_gain == pytest.approx(0.18, abs=1e-3)
    assert run.disk_part == pytest.approx(0.0, abs=1e-6) and run.host_part == pytest.approx(0.0, abs=1e-3)
    parts = (run.disk_part, run.host_part, run.untraced_part)
    assert None not in parts and sum(p or 0.0 for p in parts) == pytest.approx(run.claimed_gain)
    assert "the modelled disk's time per transaction changed by +0.0% of the time before (8.00 -> 8.00 ms), not " \
        "within half of the -18.0% the time per transaction changed in all: -18.0% is time no trace saw" \
        in verdict.reason
    assert verdict.reason.endswith("the modelled disk does not explain the time saved")
    assert "Measurement NOT VALID" in verdict_line(verdict.as_dict())


def test_a_gain_partly_untraced_passes_while_the_disk_explains_it_within_half() -> None:
    # disk 16 -> 10 ms, host 2 ms: 33 % of the time before; pgbench says 18.5 -> 12.5 ms (32.4 %)
    verdict = _judge(_run(16.0, 2.0, latency_ms=18.5), _run(10.0, 2.0, latency_ms=12.5))
    assert verdict.valid, verdict
    run = verdict.checks[0]
    assert run.disk_part == pytest.approx(6 / 18.5) and run.untraced_part is not None
    assert "untraced" in verdict_line(verdict.as_dict())


@pytest.mark.parametrize("which", ["latency", "read", "disk"])
def test_a_nan_never_passes(which: str) -> None:
    nan = float("nan")
    before = _run(8.0, 2.0)
    if which == "latency":  # pgbench's mean latency of the after run; its reads' latency is a number
        after = _run(5.0, 2.0, latency_ms=nan, read_latency_ms=7.0)
    elif which == "read":  # only the SELECTs' latency: the run's own figures are numbers
        after = _run(5.0, 2.0, read_latency_ms=nan)
    else:  # a modelled time the trace could not state
        measurement, split = _run(5.0, 2.0)
        after = measurement, replace(split, transaction_disk_ms=nan)
    verdict = _judge(before, after)
    assert not verdict.valid, verdict
    assert "not a number" in verdict.reason and "Measurement NOT VALID" in verdict_line(verdict.as_dict())


@pytest.mark.parametrize("clients", [2, 8])
def test_parts_are_per_transaction_whatever_the_client_count(clients: int) -> None:
    # disk 16 -> 10 ms, host 2 -> 3 ms per transaction (valid with one client, see above); pgbench's
    # latency is per transaction of one client, the trace's clock moves 1/clients of it per transaction.
    # Only the run level: a read's own modelled time is its disk part, its wait behind the other
    # clients' requests is the host's (docs/demo.md), so the per-read rule is not about clients.
    def run(disk_ms: float, host_ms: float, clients: int) -> tuple[Measurement, TimeSplit]:
        measurement, _ = _run(disk_ms, host_ms, clients=clients)
        measurement = replace(measurement, read_latency_ms=None, statements={"UPDATE x SET y = 1;": 1.0})
        return measurement, split_run(_trace(disk_ms, host_ms, clients), measurement)

    one = _judge(run(16.0, 2.0, 1), run(10.0, 3.0, 1))
    many = _judge(run(16.0, 2.0, clients), run(10.0, 3.0, clients))
    assert one.valid and many.valid, many
    assert many.checks[0].disk_part == pytest.approx(one.checks[0].disk_part, rel=1e-6)
    assert many.checks[0].host_part == pytest.approx(one.checks[0].host_part, abs=1e-4)
    assert many.checks[0].disk_part == pytest.approx(6 / 18, rel=1e-6)
