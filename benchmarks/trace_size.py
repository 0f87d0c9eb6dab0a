"""The block-layer trace's size and speed: bytes a request stored, and the replay's cost.

Three synthetic request streams of a minute at a million requests a minute (16,667 a
second, 16 processes) on a 2 TB disk, shaped as the workloads the trace must hold: OLTP
(random 8 KiB reads and writes, a third continuing the previous request), a scan (128 KiB
reads in order, two streams) and a mix of both. For each: the bytes a request takes in
``BlockTrace.data`` (base64 of zlib of the columns, docs/json-format.md; the bound is 16),
the encode and decode times, and the replay's time per request on the default drive model:
50,000 requests of the shape from 8 closed-loop processes (8 ms service, 1 ms think; a hard
disk serves a few hundred a second, not 16,667, and the replay's cost grows with the
requests in flight). The replay is a Python event loop, linear in requests.

    .venv/bin/python benchmarks/trace_size.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from advisor.disk.presets import get_model
from advisor.disk.replay import Stream, replay
from advisor.trace.codec import Requests, decode_requests, encode_requests

DISK = 2 * 10**12
RATE = 1_000_000 / 60.0


def stream(shape: str, count: int, seed: int = 1) -> Requests:
    """*count* requests of *shape* (oltp, scan, mixed) issued at RATE by 16 processes."""
    rng = np.random.default_rng(seed)
    issue = 1000.0 + np.cumsum(rng.exponential(1 / RATE, count))
    random_sector = rng.integers(0, DISK // 512, count) // 16 * 16
    follows = rng.random(count) < (0.33 if shape == "oltp" else 0.0)
    scan = np.full(count, shape == "scan") | ((rng.random(count) < 0.5) & (shape == "mixed"))
    sectors = np.where(scan, 256, 16).astype(np.int64)
    sector = random_sector.astype(np.int64)
    cursor = [10**8, 10**9]
    for i in range(count):
        if scan[i]:
            lane = i % 2
            sector[i] = cursor[lane]
            cursor[lane] += 256
        elif follows[i] and i:
            sector[i] = sector[i - 1] + sectors[i - 1]
    op = np.where(scan | (rng.random(count) < 0.7), 0, 1).astype(np.int64)
    service = rng.gamma(2.0, 4e-3, count)
    return Requests(issue, service, sector, sectors, op, rng.integers(0, 16, count).astype(np.int64))


def main() -> None:
    """Print a line per shape: bytes a request, encode/decode ms, replay µs a request."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    count = int(RATE * 60)
    drive = get_model("class-7200-desktop")
    print(f"load {os.getloadavg()[0]:.1f}; {count:,} requests a stream; medians of {args.rounds} rounds")
    print(f"{'shape':8} {'bytes/request':>14} {'encode s':>9} {'decode s':>9} {'replay us/request':>18}")
    for shape in ("oltp", "scan", "mixed"):
        requests = stream(shape, count)
        sizes, encodes, decodes, replays = [], [], [], []
        for _ in range(args.rounds):
            start = time.perf_counter()
            text = encode_requests(requests, 1000.0)
            encodes.append(time.perf_counter() - start)
            start = time.perf_counter()
            decode_requests(text, count, 1000.0)
            decodes.append(time.perf_counter() - start)
            sizes.append(len(text) / count)
            sample = requests.take(slice(0, 50_000))
            process = np.arange(len(sample), dtype=np.int64) % 8
            issue = (np.arange(len(sample)) // 8).astype(np.float64) * 0.009
            start = time.perf_counter()
            replay(drive, Stream(sample.sector * 512, sample.sectors * 512, sample.op, process, issue, issue + 0.008),
                   DISK)
            replays.append((time.perf_counter() - start) / len(sample) * 1e6)
        print(f"{shape:8} {statistics.median(sizes):14.2f} {statistics.median(encodes):9.2f} "
              f"{statistics.median(decodes):9.2f} {statistics.median(replays):18.1f}")


if __name__ == "__main__":
    main()
