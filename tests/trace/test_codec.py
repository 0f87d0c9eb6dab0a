"""The trace's compact form: requests and extents survive a round trip, within the size bound."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from advisor.errors import BadInput
from advisor.trace.codec import (
    FUA_BIT,
    TRACE_ENCODING,
    ExtentTable,
    Requests,
    decode_extents,
    decode_requests,
    encode_extents,
    encode_requests,
)


def oltp_like(count: int, seed: int = 1) -> Requests:
    """Random 8 KiB reads on a 2 TB disk from 16 processes, some sequential runs, 1M requests a minute."""
    rng = np.random.default_rng(seed)
    issue = 1000.0 + np.cumsum(rng.exponential(60e-6, count))
    sector = rng.integers(0, 2 * 10**12 // 512, count) // 16 * 16
    runs = rng.random(count) < 0.3  # a third continue the previous request
    sectors = np.where(rng.random(count) < 0.9, 16, 256)
    for i in np.flatnonzero(runs[1:]) + 1:
        sector[i] = sector[i - 1] + sectors[i - 1]
    service = rng.gamma(2.0, 4e-3, count).round(6)
    op = np.where(rng.random(count) < 0.7, 0, 1)
    return Requests(issue.round(6), service, sector.astype(np.int64), sectors.astype(np.int64), op.astype(np.int64),
                    rng.integers(0, 16, count).astype(np.int64))


def test_requests_round_trip_to_the_microsecond() -> None:
    requests = oltp_like(20000)
    text = encode_requests(requests, 1000.0)
    back = decode_requests(text, len(requests), 1000.0)
    assert np.array_equal(back.sector, requests.sector)
    assert np.array_equal(back.sectors, requests.sectors)
    assert np.array_equal(back.op, requests.op)
    assert np.array_equal(back.process, requests.process)
    assert np.abs(back.issue_s - requests.issue_s).max() < 1e-6
    assert np.abs(back.service_s - requests.service_s).max() < 1e-6


def test_a_million_requests_a_minute_stay_under_sixteen_bytes_each() -> None:
    requests = oltp_like(200000)
    text = encode_requests(requests, 1000.0)
    assert len(text) / len(requests) < 16, f"{len(text) / len(requests):.1f} bytes a request"


def test_a_backward_clock_step_is_stored_as_no_time_passing() -> None:
    requests = oltp_like(10)
    stepped = Requests(requests.issue_s.copy(), requests.service_s, requests.sector, requests.sectors, requests.op,
                       requests.process)
    stepped.issue_s[5:] -= 1.0
    back = decode_requests(encode_requests(stepped, 999.0), 10, 999.0)
    assert back.issue_s[5] == pytest.approx(back.issue_s[4])


def test_data_of_another_length_is_refused() -> None:
    text = encode_requests(oltp_like(10), 1000.0)
    with pytest.raises(BadInput, match="not the 25 x 11"):
        decode_requests(text, 11, 1000.0)
    with pytest.raises(BadInput, match="base64"):
        decode_requests("not base64!", 1, 0.0)
    with pytest.raises(BadInput, match="zlib"):
        decode_requests(base64.b64encode(b"plain").decode(), 1, 0.0)


def test_extents_round_trip_sorted_by_disk_byte() -> None:
    table = ExtentTable(np.array([1, 0, 1]), np.array([0, 0, 4096]), np.array([900, 100, 500]), np.array([10, 20, 30]))
    back = decode_extents(encode_extents(table), files=2)
    assert back.disk_byte.tolist() == [100, 500, 900]
    assert back.file.tolist() == [0, 1, 1]
    assert back.file_offset.tolist() == [0, 4096, 0]
    with pytest.raises(BadInput, match="does not list"):
        decode_extents(encode_extents(table), files=1)


def with_fua(requests: Requests) -> Requests:
    fua = (requests.op == 1) & (np.arange(len(requests)) % 3 == 0)
    return Requests(requests.issue_s, requests.service_s, requests.sector, requests.sectors, requests.op,
                    requests.process, fua)


def test_fua_writes_round_trip_and_an_older_trace_reads_without_them() -> None:
    requests = with_fua(oltp_like(1000))
    text = encode_requests(requests, 1000.0)
    back = decode_requests(text, len(requests), 1000.0, TRACE_ENCODING)
    assert np.array_equal(back.fua_mask, requests.fua_mask) and back.fua_mask.any()
    assert np.array_equal(back.op, requests.op)
    plain = oltp_like(1000)  # what advisor-trace-1 stored: the op alone
    old = decode_requests(encode_requests(plain, 1000.0), len(plain), 1000.0, "advisor-trace-1")
    assert np.array_equal(old.op, plain.op) and not old.fua_mask.any()


def test_an_unknown_encoding_and_a_flag_on_a_read_are_refused() -> None:
    requests = oltp_like(10)
    text = encode_requests(requests, 1000.0)
    with pytest.raises(BadInput, match="advisor-trace-9"):
        decode_requests(text, 10, 1000.0, "advisor-trace-9")
    flagged = Requests(requests.issue_s, requests.service_s, requests.sector, requests.sectors,
                       np.where(np.arange(10) == 0, FUA_BIT, requests.op), requests.process)
    with pytest.raises(BadInput, match="unknown operation"):
        decode_requests(encode_requests(flagged, 1000.0), 10, 1000.0)
