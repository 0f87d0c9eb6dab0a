"""How long a traced request waited in front of the emulated drive: the block layer against the drive.

`advisor collect --trace` times each request from the block layer's issue to its completion;
on the emulated HDD that time includes the host's path to the drive (the loop device, FUSE,
the emulator's threads), which a real drive's block layer does not have. The accuracy suite
(`benchmarks/accuracy.py --keep DIR`) keeps, for the same measured runs the traced collect
covered, the emulated drive's own record of every request (`io-trace-<side>-run-<n>-<disk>.json`:
operation, offset, length, its arrival at the drive, its reply, and the modelled time).

This lines the two up request by request (same operation, offset and length, the drive's
arrival nearest the block layer's issue, within a second) and prints per operation the block
layer's mean time, the wait from the issue to the drive's arrival, the time in the drive (its
own queue included), and the replay's time for the same requests (the mean over the report's
rotational phases, on the class-7200-desktop preset the suite emulates):

    .venv/bin/python benchmarks/host_path.py DIR/tpcb-qd8 DIR/three-databases [--side before]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from advisor.disk.physics import ModelPhysics
from advisor.disk.presets import get_model
from advisor.engine.replay_today import SelfCheck, self_check
from advisor.model.snapshot import load_workload
from advisor.trace.codec import FLUSH, READ, SECTOR_BYTES, WRITE

OPS = {"read": READ, "write": WRITE, "flush": FLUSH}
MATCH_WITHIN_S = 1.0


def drive_records(directory: Path, side: str, disk: str) -> dict[tuple[int, int, int], list[tuple[float, float]]]:
    """(op, offset, length) -> [(arrival at the drive, time in the drive)], sorted, from every kept run of *side*."""
    found: dict[tuple[int, int, int], list[tuple[float, float]]] = {}
    for path in sorted(directory.glob(f"io-trace-{side}-run-*-{disk}.json")):
        for op, offset, length, arrived, _replied, model_s in json.loads(path.read_text())["io_trace"]:
            if op in OPS:
                found.setdefault((OPS[op], int(offset), int(length)), []).append((float(arrived), float(model_s)))
    return found


def report(directory: Path, side: str) -> None:
    physics = ModelPhysics(get_model("class-7200-desktop"))
    workload = load_workload(directory / f"workload-{side}-traced.json")
    for trace in workload.traces:
        checked = self_check(trace, workload, physics)
        if not isinstance(checked, SelfCheck):
            print(f"{directory.name} {trace.disk}: not replayed ({checked.refused})")
            continue
        records = drive_records(directory, side, trace.disk)
        if not records:
            print(f"{directory.name} {trace.disk}: no drive records kept (run the suite with --keep)")
            continue
        r = checked.requests
        replayed = np.mean([run.service_s for run in checked.today], axis=0)
        waited = np.full(len(r.op), np.nan)
        inside = np.full(len(r.op), np.nan)
        for i in range(len(r.op)):
            length = int(r.sectors[i]) * SECTOR_BYTES
            offset = int(r.sector[i]) * SECTOR_BYTES
            candidates = records.get((int(r.op[i]), offset, length)) or records.get((int(r.op[i]), 0, length))
            if not candidates:
                continue
            arrived, model_s = min(candidates, key=lambda c: abs(c[0] - r.issue_s[i]))
            if abs(arrived - r.issue_s[i]) <= MATCH_WITHIN_S:
                waited[i], inside[i] = arrived - r.issue_s[i], model_s
        matched = ~np.isnan(waited)
        print(f"{directory.name} {trace.disk} ({side}): {int(matched.sum()):,} of {len(r.op):,} requests matched; "
              "ms per request: block layer | issue -> the drive | in the drive | replayed")
        for name, op in OPS.items():
            mask = matched & checked.timed & (r.op == op)
            if mask.any():
                print(f"  {name:5} {int(mask.sum()):6,}  {r.service_s[mask].mean() * 1e3:7.2f} | "
                      f"{waited[mask].mean() * 1e3:7.2f} | {inside[mask].mean() * 1e3:7.2f} | "
                      f"{replayed[mask].mean() * 1e3:7.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directories", type=Path, nargs="+", help="workload directories kept by accuracy.py --keep")
    parser.add_argument("--side", choices=("before", "after"), default="before")
    args = parser.parse_args()
    for directory in args.directories:
        report(directory, args.side)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
