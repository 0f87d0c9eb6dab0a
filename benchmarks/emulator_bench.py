"""The emulated HDD against the model's own predictions, side by side, for two presets.

For each preset the emulator is attached (1 GiB, cache off) and measured from outside
through the loop device with O_DIRECT; the simulator runs the same streams on the same
stretched model. Printed per test: predicted, measured, measured/predicted.

Tests: QD1 4 KiB random reads in the outer and inner 1 % and over the whole disk, two
QD1 readers at opposite edges, fio at queue depth 16 (SPTF at work), sequential 1 MiB
reads at the outer and inner edge, and same-offset commit rates per cache mode. Latencies
are medians (p50). A last table measures the emulator's own residual: a constant 1 ms
model, where any deviation is the emulator's path, not physics.

Needs root, /dev/fuse and fio. ``--scale 10`` runs ten times faster. Backing files go to
/dev/shm when it has room: a busy host disk can stall a read for milliseconds.

    .venv/bin/python benchmarks/emulator_bench.py [--scale 1] [--ios 300]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.disk.emulator.device import EmulatedDisk, emulated_disk  # noqa: E402
from advisor.disk.emulator.timing import constant, sized_model  # noqa: E402
from advisor.disk.presets import get_model  # noqa: E402
from advisor.disk.simulate import StreamSpec, simulate  # noqa: E402
from tests.helpers.emulated import (  # noqa: E402
    commit_rate,
    memory_dir,
    parallel_read_latencies,
    read_cycles,
    read_latencies,
)

PRESETS = ("class-7200-desktop", "class-10k")
SIZE = 1 << 30
BLOCK = 4096
Row = tuple[str, float, float, str]


def offsets(band: tuple[float, float], count: int, seed: int, block: int = BLOCK) -> list[int]:
    first = int(band[0] * SIZE) // block
    last = max(first + 1, (int(band[1] * SIZE) - block) // block + 1)
    return [int(v) * block for v in np.random.default_rng(seed).integers(first, last, size=count)]


def fio_iops(disk: EmulatedDisk, depth: int, ios: int) -> float:
    args = ["fio", "--name=qd", f"--filename={disk.device}", "--direct=1", "--ioengine=libaio",
            f"--iodepth={depth}", "--rw=randread", "--bs=4k", f"--number_ios={ios}", "--norandommap",
            "--randrepeat=0", "--output-format=json"]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout)["jobs"][0]["read"]["iops"]) / disk.scale


def measure_preset(preset: str, scale: float, ios: int, workdir: Path) -> list[Row]:
    model = sized_model(get_model(preset), SIZE)

    def predict(streams: list[StreamSpec], n: int = 6000) -> float:
        return simulate(model, streams, ios=n, seed=3, write_cache="off").p50_ms

    rows: list[Row] = []
    with emulated_disk(preset, SIZE, workdir / f"{preset}.img", scale=scale, partscan=False) as disk:
        rows.append(("path overhead compensated (real µs)", 0.0, disk.path_overhead_s * 1e6, "info"))
        for name, band in (("QD1 outer 1 % (ms)", (0.0, 0.01)), ("QD1 inner 1 % (ms)", (0.99, 1.0)),
                           ("QD1 full stroke (ms)", (0.0, 1.0))):
            # replay the simulator's own stream (same seed: same offsets, same order)
            warm = min(ios // 10, 500)
            sim = simulate(model, [StreamSpec("randread", band, BLOCK)], ios=ios, seed=5, write_cache="off")
            lat = read_latencies(disk.device, offsets(band, ios + warm + 2, 5)[: ios + warm])[warm:]
            rows.append((name, sim.p50_ms, statistics.median(lat) * 1e3 * scale, "ms"))
        per = parallel_read_latencies(disk.device, [offsets((0.0, 0.01), ios // 2, 1),
                                                   offsets((0.99, 1.0), ios // 2, 2)])
        rows.append(("2 streams, opposite edges (ms)",
                     predict([StreamSpec("randread", (0.0, 0.01), BLOCK), StreamSpec("randread", (0.99, 1.0), BLOCK)]),
                     statistics.median([v for lat in per for v in lat[5:]]) * 1e3 * scale, "ms"))
        qd_pred = simulate(model, [StreamSpec("randread", (0.0, 1.0), BLOCK, qd=16)], ios=6000, seed=3,
                           write_cache="off").iops
        rows.append(("fio QD16 full stroke (IOPS)", qd_pred, fio_iops(disk, 16, ios * 2), "iops"))
        for name, start in (("seq 1 MiB outer (MB/s)", 0.0), ("seq 1 MiB inner (MB/s)", 0.9)):
            block = 1 << 20
            count = min(96, int(0.1 * SIZE) // block)
            first = int(start * SIZE) // block * block
            cycles = read_cycles(disk.device, [first + i * block for i in range(count)], size=block)
            measured = block / statistics.median(cycles[3:]) / 1e6 / scale
            predicted = simulate(model, [StreamSpec("read", (start, min(1.0, start + 0.1)), block)], ios=400,
                                 seed=1, write_cache="off").mb_s_decimal
            rows.append((name, predicted, measured, "MB/s"))
    rpm_limit = get_model(preset).rpm / 60
    for cache, count in (("off", 60), ("volatile", 60), ("lying", 300)):
        with emulated_disk(preset, 64 << 20, workdir / f"{preset}-{cache}.img", scale=scale, cache=cache,
                           partscan=False) as disk:
            rate = commit_rate(disk.device, count) / scale
        rows.append((f"commits/s cache={cache} (RPM/60 = {rpm_limit:.0f})", rpm_limit, rate, "rate"))
    return rows


def residual(scale: float, ios: int, workdir: Path) -> list[Row]:
    rows: list[Row] = []
    with emulated_disk(constant(1.0), 64 << 20, workdir / "constant.img", scale=scale, partscan=False) as disk:
        lat = read_latencies(disk.device, offsets((0.0, 0.06), ios, 9))
        rows.append(("constant 1 ms model, p50 (ms)", 1.0, statistics.median(lat[10:]) * 1e3 * scale, "ms"))
        rows.append(("constant 1 ms model, mean (ms)", 1.0, statistics.mean(lat[10:]) * 1e3 * scale, "ms"))
    with emulated_disk(constant(1.0), 64 << 20, workdir / "raw.img", scale=scale, partscan=False,
                       compensate=False) as disk:
        lat = read_latencies(disk.device, offsets((0.0, 0.06), ios, 9))
        rows.append(("same, path not compensated, p50 (ms)", 1.0, statistics.median(lat[10:]) * 1e3 * scale, "ms"))
    return rows


def print_table(title: str, rows: list[Row]) -> None:
    print(f"\n{title}")
    print(f"{'test':46s} {'predicted':>10s} {'measured':>10s} {'ratio':>7s}")
    for name, predicted, measured, kind in rows:
        if kind == "info":
            print(f"{name:46s} {'':>10s} {measured:10.1f} {'':>7s}")
        else:
            print(f"{name:46s} {predicted:10.2f} {measured:10.2f} {measured / predicted:7.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--ios", type=int, default=300)
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="emulator-bench-") as tmp, memory_dir(Path(tmp)) as workdir:
        for preset in PRESETS:
            print_table(f"{preset}, scale {args.scale:g}, 1 GiB", measure_preset(preset, args.scale, args.ios, workdir))
        print_table(f"emulator residual, scale {args.scale:g}", residual(args.scale, args.ios, workdir))
    print(f"\n({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
