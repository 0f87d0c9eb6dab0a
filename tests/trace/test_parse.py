"""tracefs lines as this kernel and older ones print them, paired into requests."""

from __future__ import annotations

import numpy as np

from advisor.trace.parse import TraceParser, clock_steps, completed_requests

NEW = [  # 6.x: with the ioprio field
    "         python3-1201    [001] ..... 100.000100: block_rq_issue: 7,0 R 8192 () 2048 + 16 none,0,0 [python3]",
    "   kworker/1:1H-44      [001] d..1. 100.000900: block_rq_issue: 7,0 WS 4096 () 4096 + 8 be,0,4 [kworker/1:1H]",
    "          <idle>-0       [000] d.h1. 100.004100: block_rq_complete: 7,0 R () 2048 + 16 none,0,0 [0]",
    "          <idle>-0       [000] d.h1. 100.006000: block_rq_complete: 7,0 WS () 4096 + 8 be,0,4 [0]",
    "          <idle>-0       [000] d.h1. 100.006100: block_rq_complete: 7,0 R () 9999 + 8 none,0,0 [0]",
    " postgres: walwriter-77 [000] ..... 100.007000: block_rq_issue: 7,0 FF 0 () 0 + 0 none,0,0 [postgres]",
    "          <idle>-0       [000] d.h1. 100.008000: block_rq_complete: 7,0 FF () 0 + 0 none,0,0 [0]",
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
