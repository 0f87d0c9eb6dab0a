"""tracefs lines as this kernel and older ones print them, paired into requests."""

from __future__ import annotations

import numpy as np

from advisor.trace.parse import DeviceStream, TraceParser, clock_steps, completed_requests

NEW = [  # 6.x: with the ioprio field
    "         python3-1201    [001] ..... 100.000100: block_rq_issue: 7,0 R 8192 () 2048 + 16 none,0,0 [python3]",
    "   kworker/1:1H-44      [001] d..1. 100.000900: block_rq_issue: 7,0 WS 4096 () 4096 + 8 be,0,4 [kworker/1:1H]",
    "          <idle>-0       [000] d.h1. 100.004100: block_rq_complete: 7,0 R () 2048 + 16 none,0,0 [0]",
    "          <idle>-0       [000] d.h1. 100.006000: block_rq_complete: 7,0 WS () 4096 + 8 be,0,4 [0]",
    "          <idle>-0       [000] d.h1. 100.006100: block_rq_complete: 7,0 R () 9999 + 8 none,0,0 [0]",
    " postgres: walwriter-77 [000] ..... 100.007000: block_rq_issue: 7,0 FF 0 () 0 + 0 none,0,0 [postgres]",
    "        <idle>-0       [000] d.h1. 100.008000: block_rq_complete: 7,0 FF () 18446744073709551615 + 0 none,0,0 [0]",
    "         python3-1201    [001] ..... 100.009000: block_rq_issue: 7,0 R 8192 () 64 + 16 none,0,0 [python3]",
    "         python3-1201    [001] ..... 100.009500: block_rq_issue: 8,16 R 8192 () 64 + 16 none,0,0 [python3]",
]
OLD = [  # before 6.x: no ioprio field, no flags column
    "          fio-9  [000] 5.000000: block_rq_issue: 8,0 W 4096 () 100 + 8 [fio]",
    "       <idle>-0  [000] 5.002000: block_rq_complete: 8,0 W () 100 + 8 [0]",
]


def test_issues_pair_with_their_completions_per_device() -> None:
    parser = TraceParser()
    for line in NEW + ["# a comment", "garbage line without the event"]:
        parser.feed(line)
    stream = parser.devices["7,0"]
    requests, incomplete = completed_requests(stream)
    assert incomplete == 1  # the last read of 7,0 never completed in the trace
    assert stream.orphan_completions == 1  # sector 9999 was issued before the trace began
    assert stream.completions == 3  # reads and writes, not the flush
    assert requests.op.tolist() == [0, 1, 2]
    assert requests.sector.tolist() == [2048, 4096, 0]
    assert requests.sectors.tolist() == [16, 8, 0]
    assert np.allclose(requests.service_s, [0.004, 0.0051, 0.001])
    names = {index: name for (pid, name), index in parser.processes.items()}
    assert [names[p] for p in requests.process.tolist()] == ["python3", "kworker/1:1H", "postgres"]
    assert ("python3", 1201) in {(name, pid) for (pid, name) in parser.processes}
    assert "8,16" in parser.devices  # another device's line is kept apart


def test_the_older_format_reads_too() -> None:
    parser = TraceParser()
    for line in OLD:
        parser.feed(line)
    requests, _ = completed_requests(parser.devices["8,0"])
    assert requests.sector.tolist() == [100] and np.allclose(requests.service_s, [0.002])
    assert parser.unreadable == 0


def test_a_clock_going_backwards_is_found() -> None:
    parser = TraceParser()
    for line in OLD + [line.replace(" 5.0", " 4.0").replace(" 100 + ", " 300 + ") for line in OLD]:
        parser.feed(line)
    requests, _ = completed_requests(parser.devices["8,0"])
    assert clock_steps(requests) == [1]


# As kernel 6.18 printed them for a loop device (the emulated disk) under four threads each
# writing 8 KiB and calling fdatasync: the flush machinery's flush request (FF, sector 0 at
# issue, 2^64-1 at completion) shared by the waiting fsyncs, each of whose empty pre-flush
# writes completes after it (WS () 0 + 0) without having been issued.
FSYNCS = [
    "          python-12740   [000] ..... 11701.307588: block_rq_issue: 7,3 WS 8192 () 280576 + 16 be,0,4 [python]",
    "         advisor-12737   [000] ..s.. 11701.308038: block_rq_complete: 7,3 WS () 280576 + 16 be,0,4 [0]",
    "    kworker/0:1H-58      [000] ..... 11701.308085: block_rq_issue: 7,3 FF 0 () 0 + 0 none,0,0 [kworker/0:1H]",
    "          python-12743   [001] ..... 11701.308499: block_rq_issue: 7,3 WS 8192 () 378880 + 16 be,0,4 [python]",
    "          python-12741   [001] ..... 11701.308569: block_rq_issue: 7,3 WS 8192 () 313344 + 16 be,0,4 [python]",
    " ksoftirqd/1-22      [001] ..s.. 11701.317574: block_rq_complete: 7,3 FF () 18446744073709551615 + 0 none,0,0 [0]",
    "     ksoftirqd/1-22      [001] dNs1. 11701.317590: block_rq_complete: 7,3 WS () 0 + 0 be,0,4 [0]",
    "     ksoftirqd/1-22      [001] ..s.. 11701.318251: block_rq_complete: 7,3 WS () 378880 + 16 be,0,4 [0]",
    "    kworker/1:0H-24      [001] ..... 11701.318530: block_rq_issue: 7,3 FF 0 () 0 + 0 none,0,0 [kworker/1:0H]",
    "     ksoftirqd/0-14      [000] .Ns.. 11701.319003: block_rq_complete: 7,3 WS () 313344 + 16 be,0,4 [0]",
    " ksoftirqd/1-22      [001] ..s.. 11701.351007: block_rq_complete: 7,3 FF () 18446744073709551615 + 0 none,0,0 [0]",
    "     ksoftirqd/1-22      [001] d.s1. 11701.351025: block_rq_complete: 7,3 WS () 0 + 0 be,0,4 [0]",
    "     ksoftirqd/1-22      [001] d.s1. 11701.351345: block_rq_complete: 7,3 WS () 0 + 0 be,0,4 [0]",
]


def test_a_flush_pairs_with_its_own_completion_not_with_the_fsyncs_it_ends() -> None:
    parser = TraceParser()
    for line in FSYNCS:
        parser.feed(line)
    stream = parser.devices["7,3"]
    requests, incomplete = completed_requests(stream)
    assert incomplete == 0 and stream.orphan_completions == 0
    assert requests.op.tolist() == [1, 2, 1, 1, 2]
    flushes = requests.op == 2
    assert np.allclose(requests.service_s[flushes], [0.009489, 0.032477])  # issue to its own FF completion
    assert stream.sequence_ends == 3  # the empty pre-flush writes, never issued as such
    assert stream.completions == 6  # diskstats counts those among the writes


def test_fua_is_kept_for_writes() -> None:
    parser = TraceParser()
    for line in [" jbd2/sda1-8-310  [000] ..... 7.000000: block_rq_issue: 8,0 WFS 4096 () 800 + 8 be,0,4 [jbd2/sda1-8]",
                 "          <idle>-0  [000] d.h1. 7.004000: block_rq_complete: 8,0 WFS () 800 + 8 be,0,4 [0]",
                 "  jbd2/sda1-8-310  [000] ..... 7.005000: block_rq_issue: 8,0 WS 4096 () 808 + 8 be,0,4 [jbd2/sda1-8]",
                 "          <idle>-0  [000] d.h1. 7.006000: block_rq_complete: 8,0 WS () 808 + 8 be,0,4 [0]"]:
        parser.feed(line)
    requests, _ = completed_requests(parser.devices["8,0"])
    assert requests.op.tolist() == [1, 1]
    assert requests.fua_mask.tolist() == [True, False]


# A SATA disk (8,0) under libata, as kernel 6.18 prints the three events (the formats of
# events/block/block_rq_{issue,requeue,complete}/format): a queued read issued while the
# drive runs a non-queued FLUSH CACHE is deferred by the driver (block_rq_requeue, printed
# as a completion is) and issued again once the flush has completed; later another read of
# the same sector.
REQUEUED = [
    "    kworker/0:1H-58      [000] ..... 200.000000: block_rq_issue: 8,0 FF 0 () 0 + 0 none,0,0 [kworker/0:1H]",
    "        postgres-4100    [001] ..... 200.001000: block_rq_issue: 8,0 R 8192 () 524288 + 16 be,0,4 [postgres]",
    "        postgres-4100    [001] d..1. 200.001010: block_rq_requeue: 8,0 R () 524288 + 16 be,0,4 [0]",
    "        <idle>-0     [000] d.h1. 200.012000: block_rq_complete: 8,0 FF () 18446744073709551615 + 0 none,0,0 [0]",
    "    kworker/1:1H-61      [001] ..... 200.012050: block_rq_issue: 8,0 R 8192 () 524288 + 16 be,0,4 [kworker/1:1H]",
    "          <idle>-0       [001] d.h1. 200.020000: block_rq_complete: 8,0 R () 524288 + 16 be,0,4 [0]",
    "        postgres-4107    [000] ..... 200.030000: block_rq_issue: 8,0 R 8192 () 524288 + 16 be,0,4 [postgres]",
    "          <idle>-0       [000] d.h1. 200.035000: block_rq_complete: 8,0 R () 524288 + 16 be,0,4 [0]",
]


def test_a_requeued_request_is_one_request_timed_from_its_first_issue() -> None:
    parser = TraceParser()
    for line in REQUEUED:
        parser.feed(line)
    stream = parser.devices["8,0"]
    requests, incomplete = completed_requests(stream)
    # the re-issue is neither a second request nor left open (to pair with the later read)
    assert incomplete == 0 and stream.orphan_completions == 0 and stream.requeues == 1
    assert requests.op.tolist() == [2, 0, 0]
    assert np.allclose(requests.issue_s, [200.0, 200.001, 200.03])
    assert np.allclose(requests.service_s, [0.012, 0.019, 0.005])  # the read waited for the flush
    names = {index: name for (pid, name), index in parser.processes.items()}
    assert [names[p] for p in requests.process.tolist()] == ["kworker/0:1H", "postgres", "postgres"]
    assert stream.completions == 2 == int((requests.op != 2).sum())  # what diskstats counts: once each


def test_a_request_requeued_at_the_end_is_in_flight_and_one_never_seen_issued_is_read_as_issued() -> None:
    parser = TraceParser()
    # the first requeue is of a read issued before the trace began (or given back before the driver
    # started it): no open issue to set aside, its issue is a first one; the last read is given back
    # as the trace ends: in flight at the edge, not a request
    for line in [*REQUEUED[2:3], *REQUEUED[4:7],
                 "        postgres-4107    [000] d..1. 200.030010: block_rq_requeue: 8,0 R () 524288 + 16 be,0,4 [0]"]:
        parser.feed(line)
    stream = parser.devices["8,0"]
    requests, incomplete = completed_requests(stream)
    assert requests.op.tolist() == [0] and np.allclose(requests.service_s, [0.00795])
    assert incomplete == 1 and stream.requeues == 1 and stream.orphan_completions == 0


def test_the_trace_says_how_many_requests_were_requeued() -> None:
    from advisor.collect.trace import _warnings

    parser = TraceParser()
    for line in REQUEUED:
        parser.feed(line)
    assert _warnings(parser.devices["8,0"]) == (
        "1 requests were given back by the driver and issued again; each is one request, timed from its first issue",)
    assert _warnings(DeviceStream()) == ()
