"""Each way a stored trace can be unsound is named; the replay goes on with what is sound or refuses in a line."""

from __future__ import annotations

import dataclasses

import numpy as np

from advisor.model import BlockTrace, Device, HostLayout, TraceLoss
from advisor.trace.codec import TRACE_ENCODING, Requests, encode_requests
from advisor.trace.soundness import assess

LAYOUT = HostLayout(hostname="h", devices=(Device(name="sda", path="/dev/sda", size_bytes=10**9),))


def trace(count: int = 100, **changes: object) -> BlockTrace:
    issue = 10.0 + np.arange(count, dtype=np.float64) * 0.01
    requests = Requests(issue, np.full(count, 0.005), np.arange(count, dtype=np.int64) * 16,
                        np.full(count, 16, dtype=np.int64), np.zeros(count, dtype=np.int64),
                        np.zeros(count, dtype=np.int64))
    base = BlockTrace(disk="sda", device_number="8:0", disk_size_bytes=10**9, clock="mono", started_s=10.0,
                      ended_s=11.0, interval_s=1.0, requests=count, encoding=TRACE_ENCODING,
                      data=encode_requests(requests, 10.0), files=("/db/a",), mapped_requests=count,
                      loss=TraceLoss(diskstats_requests=count, traced_completions=count, missing_requests=0))
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def test_a_sound_trace_is_replayed_whole_without_a_note() -> None:
    sound = assess(trace(), LAYOUT)
    assert sound.refused is None and sound.notes == [] and sound.requests is not None
    assert len(sound.requests) == 100


def test_lost_requests_are_counted_then_refused_beyond_the_limit() -> None:
    few = assess(trace(loss=TraceLoss(overrun=4, diskstats_requests=105, traced_completions=100,
                                      edge_requests=1, missing_requests=5)), LAYOUT)
    assert few.requests is not None
    assert few.notes == ["trace of sda: the tracer dropped 4 events (ring buffer full); 4 of the 105 requests "
                         "diskstats counted are not in it; replayed as traced"]
    many = assess(trace(loss=TraceLoss(diskstats_requests=200, traced_completions=100, missing_requests=100)), LAYOUT)
    assert many.requests is None
    assert many.refused == "trace of sda: lost 100 of 200 requests (more than 10%); no replay"


def test_a_trace_of_another_disk_is_refused() -> None:
    other = assess(trace(disk="sdq"), LAYOUT)
    assert other.refused == "trace of sdq: another disk (not in the workload's layout); no replay"
    resized = assess(trace(disk_size_bytes=2 * 10**9), LAYOUT)
    assert resized.refused == ("trace of sda: another disk (2000000000 bytes traced, 1000000000 in the layout); "
                               "no replay")


def test_a_short_trace_is_replayed_and_said() -> None:
    short = assess(trace(interval_s=60.0), LAYOUT)
    assert short.requests is not None
    assert short.notes == ["trace of sda: covers 1.0 s of the 60.0 s interval; replayed on what it covers"]


def test_a_clock_step_keeps_the_longest_steady_stretch() -> None:
    stepped = assess(trace(clock_steps=(30,)), LAYOUT)
    assert stepped.requests is not None and len(stepped.requests) == 70
    assert stepped.notes == ["trace of sda: the clock stepped back 1 time; replayed on the longest steady stretch "
                             "(70 of 100 requests)"]
    broken = assess(trace(clock_steps=(20, 45, 70)), LAYOUT)
    assert broken.refused == ("trace of sda: the clock stepped back 3 times; no stretch holds half the requests; "
                              "no replay")


def test_requests_no_file_holds_are_said_and_all_of_them_refused() -> None:
    partly = assess(trace(mapped_requests=60), LAYOUT)
    assert partly.requests is not None
    assert partly.notes == ["trace of sda: 40 of 100 requests are to sectors no database file holds (file-system "
                            "metadata, journal, other files): replayed in place, never moved"]
    none = assess(trace(mapped_requests=0), LAYOUT)
    assert none.refused == "trace of sda: no request falls in a database file; no replay"


def test_more_completions_than_diskstats_counted_are_named() -> None:
    more = assess(trace(loss=TraceLoss(diskstats_requests=80, traced_completions=100, edge_requests=2,
                                       missing_requests=0, excess_requests=20)), LAYOUT)
    assert more.requests is not None
    assert more.notes == ["trace of sda: 18 more completions than the 80 diskstats counted (requests of another "
                          "device in it?); replayed as traced"]
