"""The test bed's path between the block layer and the emulated drive, measured from both records.

A request of the accuracy suite's emulated disk leaves the block layer (``block_rq_issue``), goes
through the loop device and FUSE to the emulated drive (its record's ``arrived_s``), is served,
and comes back (the drive's ``replied_s``, then ``block_rq_complete``). A disk on a SATA or SAS
adapter spends microseconds on that path; this one spent 0.1 ms alone and 0.4-0.7 ms a request
under the workloads' load on 2 cores, and the replay, which had none, kept a parallel scan's next
read at the drive when the drive had already turned to the other end of the disk
(docs/accuracy.md, "After run 64"). The suite measures the path on each side's runs, from what it
has and a user of a real disk would not need (the drive's own record, on the same monotonic
clock as the block layer's trace), and tells each side's traced report with ``--path-ms``, as it
tells it the drive's own model with ``--preset``: the test bed's error stays out of the model's.

The emulated drive takes a round trip of its own off every request: it calibrates its path on an idle host
at start, then back-dates each arrival by the inbound part and sends each reply early by the outbound part
(:mod:`advisor.disk.emulator.calibrate`). Its platter's clock therefore sees a request arrive the inbound
calibration earlier than the record says, and reply the outbound calibration later: what the replay must
put between the block layer and its drive is the path beyond that calibration (``seen_ms``), not the whole
path the records show (``both_ms``; docs/accuracy.md, "After run 64" and "Run 65").

A request issued while a cache flush was in flight waits in the loop driver until the flush
completes (docs/accuracy.md, run 29): the replay models that wait itself (a flush is a barrier),
so those requests are left out of the path.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from advisor.disk.emulator.calibrate import PathOverhead
from advisor.trace.codec import FLUSH, READ, SECTOR_BYTES, WRITE, Requests, decode_requests

CLOCK_SLACK_S = 1e-6
"""A drive record belongs to the block layer's latest request of the same position and size issued before it
arrived, if that request completed after the drive replied (both clocks are the host's monotonic one, read to
the microsecond by the tracer)."""


@dataclass(frozen=True)
class DriveRecord:
    """One request as the emulated drive recorded it (``io-trace-*.json``'s rows)."""

    op: str
    offset_bytes: int
    length_bytes: int
    arrived_s: float
    replied_s: float


def calibration_of(said: dict[str, Any] | None) -> PathOverhead | None:
    """An emulated drive's calibration (``EmulatedDisk.overhead``) as the suite's JSON keeps it
    (``emulator_path``: one per disk, None where the drive did not calibrate)."""
    if not said:
        return None
    inbound, outbound = said["inbound"], said["outbound"]
    return PathOverhead((float(inbound[0]), float(inbound[1])), (float(outbound[0]), float(outbound[1])))


@dataclass(frozen=True)
class HostPath:
    """The path measured on one side: mean milliseconds each way, over *requests* matched, and the mean the
    emulated drive took off them by its own calibration (0 where it is not known)."""

    to_drive_ms: float
    from_drive_ms: float
    requests: int
    calibrated_to_ms: float = 0.0
    calibrated_from_ms: float = 0.0

    @property
    def both_ms(self) -> float:
        """Both ways, as the block layer and the drive's records show it."""
        return self.to_drive_ms + self.from_drive_ms

    @property
    def seen_ms(self) -> float:
        """Both ways beyond the drive's calibration: what its clock saw, and what ``--path-ms`` is told."""
        return max(0.0, self.both_ms - self.calibrated_to_ms - self.calibrated_from_ms)


def _held_by_flush(requests: Requests) -> np.ndarray:
    """Per request, whether a cache flush issued before it was still in flight when it was issued."""
    complete = requests.issue_s + requests.service_s
    flush = requests.op == FLUSH
    starts, ends = requests.issue_s[flush], complete[flush]
    order = np.argsort(starts, kind="stable")
    starts, latest_end = starts[order], np.maximum.accumulate(ends[order]) if len(ends) else ends
    k = np.searchsorted(starts, requests.issue_s, side="left") - 1  # the flushes issued strictly before
    held = np.zeros(len(requests.issue_s), dtype=bool)
    some = k >= 0
    held[some] = latest_end[k[some]] > requests.issue_s[some]
    return held


def host_path(requests: Requests, records: Sequence[DriveRecord],
              calibration: PathOverhead | None = None) -> HostPath | None:
    """The path of the block layer's *requests* (one disk's trace, on the monotonic clock) to the drive that
    recorded *records*, both ways, with what its *calibration* took off the same requests; None when no read
    or write of one matches the other.

    >>> from advisor.trace.codec import Requests
    >>> traced = Requests(np.array([1.0, 2.0]), np.array([0.010, 0.020]), np.array([8, 64]), np.array([16, 16]),
    ...                   np.array([READ, WRITE]), np.array([0, 0]), np.array([False, False]))
    >>> path = host_path(traced, [DriveRecord("read", 4096, 8192, 1.0003, 1.0098),
    ...                           DriveRecord("write", 32768, 8192, 2.0005, 2.0199)])
    >>> round(path.to_drive_ms, 3), round(path.from_drive_ms, 3), path.requests
    (0.4, 0.15, 2)
    """
    data = ((requests.op == READ) | (requests.op == WRITE)) & (requests.sectors > 0)
    if not data.any() or not records:
        return None
    block_key = requests.sector[data].astype(np.int64) * (1 << 20) + requests.sectors[data]
    block_at = requests.issue_s[data]
    block_done = block_at + requests.service_s[data]
    held = _held_by_flush(requests)[data]
    kept = [r for r in records if r.op in ("read", "write") and r.length_bytes > 0]
    drive_key = np.array([r.offset_bytes // SECTOR_BYTES * (1 << 20) + r.length_bytes // SECTOR_BYTES
                          for r in kept], dtype=np.int64)
    arrived = np.array([r.arrived_s for r in kept], dtype=np.float64)
    replied = np.array([r.replied_s for r in kept], dtype=np.float64)
    # one sorted sequence per position and size: each drive record after the block requests issued before it
    keys = np.concatenate([block_key, drive_key])
    times = np.concatenate([block_at, arrived])
    is_block = np.concatenate([np.ones(len(block_key), dtype=bool), np.zeros(len(drive_key), dtype=bool)])
    order = np.lexsort((~is_block, times, keys))
    positions = np.arange(len(order))
    last_block = np.maximum.accumulate(np.where(is_block[order], positions, -1))
    drive_at = np.flatnonzero(~is_block[order])
    match = last_block[drive_at]
    ok = match >= 0
    drive_at, match = drive_at[ok], match[ok]
    same = keys[order][match] == keys[order][drive_at]
    drive_at, match = drive_at[same], match[same]
    block_index = order[match]  # into block_*: the block requests come first in the concatenation
    drive_index = order[drive_at] - len(block_key)
    # a pair is the drive's record of a request the block layer still had in flight (one the trace missed, outside
    # its interval, would pair with an earlier request of the same place); then the ones a flush held are left out
    free = (replied[drive_index] <= block_done[block_index] + CLOCK_SLACK_S) & ~held[block_index]
    block_index, drive_index = block_index[free], drive_index[free]
    if not len(block_index):
        return None
    to_drive = arrived[drive_index] - block_at[block_index]
    from_drive = block_done[block_index] - replied[drive_index]
    taken = np.array([calibration.taken_s(kept[i].op, kept[i].length_bytes) for i in drive_index]) \
        if calibration is not None else np.zeros((len(drive_index), 2))
    return HostPath(round(float(np.mean(to_drive)) * 1000.0, 4), round(float(np.mean(from_drive)) * 1000.0, 4),
                    len(block_index), round(float(np.mean(taken[:, 0])) * 1000.0, 4),
                    round(float(np.mean(taken[:, 1])) * 1000.0, 4))


def pooled(paths: Sequence[HostPath]) -> HostPath | None:
    """Several disks' paths as one, each weighed by the requests it matched (``--path-ms`` is one figure)."""
    count = sum(p.requests for p in paths)
    if not count:
        return None

    def mean(field: str) -> float:
        return round(sum(getattr(p, field) * p.requests for p in paths) / count, 4)

    return HostPath(mean("to_drive_ms"), mean("from_drive_ms"), count, mean("calibrated_to_ms"),
                    mean("calibrated_from_ms"))


def side_path(traced: Path, records: dict[str, list[DriveRecord]],
              calibrations: dict[str, PathOverhead | None] | None = None) -> HostPath | None:
    """The path of one side: its traced workload's traces (``collect --trace``) against the drive records of
    its runs and each drive's calibration, per disk name; None where no trace is on the monotonic clock or
    nothing matches."""
    workload = json.loads(traced.read_text())
    found = []
    for trace in workload.get("traces") or []:
        if trace.get("clock") != "mono" or trace.get("disk") not in records:
            continue
        requests = decode_requests(trace["data"], trace["requests"], trace["started_s"], trace["encoding"])
        path = host_path(requests, records[trace["disk"]], (calibrations or {}).get(trace["disk"]))
        if path is not None:
            found.append(path)
    return pooled(found)


def kept_records(kept: Path, side: str) -> dict[str, list[DriveRecord]]:
    """The drive records a run kept (``--keep``: ``io-trace-<side>-run-<n>-<disk>.json``), per disk name."""
    records: dict[str, list[DriveRecord]] = {}
    for path in sorted(kept.glob(f"io-trace-{side}-run-*-*.json")):
        disk = path.stem.rsplit("-", 1)[1]
        rows = json.loads(path.read_text())["io_trace"]
        records.setdefault(disk, []).extend(DriveRecord(str(r[0]), int(r[1]), int(r[2]), float(r[3]), float(r[4]))
                                            for r in rows)
    return records


def path_arguments(path: HostPath | None) -> list[str]:
    """The report's ``--path-ms`` for *path*: what the drive's clock saw (none when the path was not measured:
    the report's default, 0)."""
    return [] if path is None else ["--path-ms", f"{path.seen_ms:.4f}"]


def path_record(path: HostPath, told: bool) -> dict[str, Any]:
    """What the suite's JSON keeps of a side's path (``host_path``), and whether its report was told it."""
    return {"to_drive_ms": path.to_drive_ms, "from_drive_ms": path.from_drive_ms, "requests": path.requests,
            "calibrated_to_ms": path.calibrated_to_ms, "calibrated_from_ms": path.calibrated_from_ms,
            "told": told}


def calibrations(result: dict[str, Any]) -> dict[str, PathOverhead | None]:
    """Each emulated drive's calibration, per disk name, as a run kept it (``emulator_path``; none before run
    65)."""
    return {disk: calibration_of(said) for disk, said in (result.get("emulator_path") or {}).items()}


def told_path(result: dict[str, Any], key: str) -> bool:
    """Whether the run told its *key* report the path (runs made before the suite measured it did not)."""
    return bool(((result.get("host_path") or {}).get(key) or {}).get("told"))


def result_path(result: dict[str, Any], key: str, kept: Path, side: str) -> HostPath | None:
    """The path a run measured for its *key* report (its JSON's ``host_path``), else measured again from what
    the run kept (its traced workload and drive records: a run made before the suite measured the path)."""
    said = (result.get("host_path") or {}).get(key)
    if said is not None and ("calibrated_to_ms" in said or not result.get("emulator_path")):
        return HostPath(float(said["to_drive_ms"]), float(said["from_drive_ms"]), int(said["requests"]),
                        float(said.get("calibrated_to_ms", 0.0)), float(said.get("calibrated_from_ms", 0.0)))
    traced = kept / f"workload-{side}-traced.json"
    records = kept_records(kept, side)
    return side_path(traced, records, calibrations(result)) if traced.is_file() and records else None
