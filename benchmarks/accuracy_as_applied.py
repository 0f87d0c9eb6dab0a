"""The traced stream of before a move, replayed on the layout the move really produced.

A replayed gain misses a measured one for one of two reasons: the plan's layout is not where the
files went (the planned replay lays each area out as the plan and ext4 would), or the database
sent another request stream after the move (more or fewer requests, other sizes, two scans that
ran together before and apart after). This replays the *before* trace's own requests, in their
order and concurrency, with each request moved to where its file's byte really lies after the
move: the after side's traced workload lists each file's extents (FIEMAP, taken with its trace).

- **layout part** = replayed gain under the plan - replayed gain as applied: what the plan's
  picture of the placement got wrong.
- **workload part** = replayed gain as applied - measured gain: what the same layout gave
  another request stream (and what the replay itself misses).

A before file is paired with the after file of the same relation (its name and its database's
directory), of the WAL, or of the temp directory; a byte past the end of the after file's
extents (temp files come and go) moves by the distance between the two files' first extents; a
request in no file's extent (file-system metadata, the journal) stays where it was traced. The
shares of each are printed beside the figures: a figure resting on few mapped requests says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from advisor.disk.replay import Replayed
from advisor.engine.disk_models import load_models
from advisor.engine.replay_area_gain import area_saved, area_self_check
from advisor.engine.replay_check import gain_of, replay_timelines, request_areas
from advisor.engine.replay_issuers import issuer_names, per_request_ms, windowed_requests
from advisor.engine.replay_today import SelfCheck, phased_replays, self_check
from advisor.model import BlockTrace, FileRate, Workload
from advisor.model.snapshot import load_workload
from advisor.trace.codec import ExtentTable, decode_extents
from advisor.trace.extents import ExtentIndex
from advisor.trace.links import flush_owners
from benchmarks.accuracy_figures import pct
from benchmarks.accuracy_host_path import result_path, told_path
from benchmarks.accuracy_table import compare

PRESET = "class-7200-desktop"


@dataclass(frozen=True)
class AsApplied:
    """One disk's replay as applied: the gain on the replay's basis, per area, and how its requests mapped."""

    disk: str
    gain: float
    weight: float  # the disk's replayed time today (s: requests x mean), which weighs its gain over disks
    areas: dict[str, float]
    mapped: float  # share of the data requests placed by their file's extent after the move
    shifted: float  # past the after file's extents: moved with the file's first extent (the rest stayed)


def _key(rate: FileRate | None, path: str) -> tuple[str, str, str]:
    """What pairs a file before a move with the same file after: a relation by its name and its
    database's directory; the WAL and the temp directory by their kind."""
    if rate is None:
        return ("", path, "")
    if rate.kind in ("wal", "temp"):
        return (str(rate.kind), "", "")
    return (str(rate.kind), rate.name or "", Path(path).parent.name)


def paired_files(before: Workload, b_trace: BlockTrace, after: Workload, a_trace: BlockTrace) -> dict[int, int]:
    """Before file index -> after file index of the same file (see :func:`_key`)."""
    b_rates = {r.path: r for r in before.rates}
    a_rates = {r.path: r for r in after.rates}
    after_keys = {_key(a_rates.get(p), p): j for j, p in enumerate(a_trace.files)}
    pairs = {}
    for i, path in enumerate(b_trace.files):
        key = _key(b_rates.get(path), path)
        if key[0] and key in after_keys:
            pairs[i] = after_keys[key]
    return pairs


def applied_offsets(offsets: np.ndarray, before: ExtentTable, after: ExtentTable,
                    pairs: dict[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each byte of *offsets* where its file's byte lies in *after*; and masks of the bytes mapped
    through an after extent and of those shifted with the file (see the module docstring).

    >>> before = ExtentTable(file=np.array([0]), file_offset=np.array([0]), disk_byte=np.array([1000]),
    ...                      length=np.array([500]))
    >>> after = ExtentTable(file=np.array([0, 0]), file_offset=np.array([0, 200]), disk_byte=np.array([5000, 9000]),
    ...                     length=np.array([200, 100]))
    >>> moved, mapped, shifted = applied_offsets(np.array([1100, 1250, 1400, 20]), before, after, {0: 0})
    >>> moved.tolist(), mapped.tolist(), shifted.tolist()
    ([5100, 9050, 5400, 20], [True, True, False, False], [False, False, True, False])
    """
    rows = ExtentIndex(before).lookup(offsets)
    moved = offsets.copy()
    mapped = np.zeros(len(offsets), dtype=bool)
    shifted = np.zeros(len(offsets), dtype=bool)
    for b_file, a_file in pairs.items():
        b_rows = np.flatnonzero(before.file == b_file)
        a_rows = np.flatnonzero(after.file == a_file)
        if not len(b_rows) or not len(a_rows):
            continue
        mine = np.isin(rows, b_rows)
        if not mine.any():
            continue
        row = rows[mine]
        file_byte = offsets[mine] - before.disk_byte[row] + before.file_offset[row]
        order = a_rows[np.argsort(after.file_offset[a_rows], kind="stable")]
        at = np.searchsorted(after.file_offset[order], file_byte, side="right") - 1
        safe = order[np.maximum(at, 0)]
        inside = (at >= 0) & (file_byte < after.file_offset[safe] + after.length[safe])
        first_shift = int(after.disk_byte[a_rows].min() - before.disk_byte[b_rows].min())
        placed = np.where(inside, after.disk_byte[safe] + file_byte - after.file_offset[safe],
                          offsets[mine] + first_shift)
        moved[mine] = placed
        mapped[np.flatnonzero(mine)[inside]] = True
        shifted[np.flatnonzero(mine)[~inside]] = True
    return moved, mapped, shifted


def as_applied(before_path: Path, after_path: Path, preset: str, time_scale: float = 1.0,
               path_ms: float = 0.0) -> list[AsApplied]:
    """Each disk traced on both sides: the before trace replayed as applied (see the module docstring), on
    the model of *preset* (the emulated drive's own, at *time_scale*, behind the path of *path_ms*, as the
    suite's reports use it)."""
    before, after = load_workload(before_path), load_workload(after_path)
    models = load_models(None, preset, None, time_scale, path_ms)
    found = []
    for b_trace in before.traces:
        a_trace = next((t for t in after.traces if t.disk == b_trace.disk), None)
        checked = self_check(b_trace, before, models.of(b_trace.disk))
        if a_trace is None or not isinstance(checked, SelfCheck):
            continue
        pairs = paired_files(before, b_trace, after, a_trace)
        b_table = decode_extents(b_trace.extents, len(b_trace.files))
        a_table = decode_extents(a_trace.extents, len(a_trace.files))
        offsets, mapped, shifted = applied_offsets(checked.stream.offset_bytes, b_table, a_table, pairs)
        replays = phased_replays(checked.physics, checked.stream.moved(offsets), b_trace.disk_size_bytes,
                                 checked.phases)
        # weighed over disks as the table weighs the replay's gains (accuracy_table.replay_of): requests x mean
        found.append(AsApplied(b_trace.disk, round(gain_of(checked, replays), 4),
                               checked.replayed_ms * len(checked.requests) / 1000.0,
                               _area_gains(b_trace, before, checked, replays),
                               *_shares(checked.data, mapped, shifted)))
    return found


def _shares(data: np.ndarray, mapped: np.ndarray, shifted: np.ndarray) -> tuple[float, float]:
    count = max(int(data.sum()), 1)
    return round(float((mapped & data).sum()) / count, 4), round(float((shifted & data).sum()) / count, 4)


def _area_gains(trace: BlockTrace, workload: Workload, checked: SelfCheck,
                replays: tuple[Replayed, ...]) -> dict[str, float]:
    """Per area 1 - as applied / today of its requests' time per request, with the flushes its writes own:
    the replay check's own area rows (:mod:`advisor.engine.replay_check`), today the replayed time or, where
    the area misses its self-check, the measured one (``area_saved``)."""
    owners = flush_owners(checked.requests)
    names, _ = request_areas(trace, workload.rates, checked, owners)
    named = issuer_names(trace.processes, checked.requests.process, owners, checked.data)
    within = windowed_requests(checked.requests.process, replay_timelines(trace, checked, replays, named))
    flushes_timed = checked.timed & ~checked.data
    today = [r.service_s for r in checked.today]
    applied = [r.service_s for r in replays]
    gains = {}
    for area in sorted({str(a) for a in names.tolist() if a}):
        mask, flushes = checked.data & (names == area), flushes_timed & (names == area)
        if mask.any():
            measured = per_request_ms([checked.requests.service_s], mask, flushes, [within.measured])
            replayed = per_request_ms(today, mask, flushes, within.today)
            _, fits = area_self_check(measured, replayed)
            gain, _ = area_saved(measured, replayed, per_request_ms(applied, mask, flushes, within.planned), fits)
            if gain is not None:
                gains[area] = gain
    return gains


def overall(found: list[AsApplied]) -> float | None:
    """The disks' gains weighted by their replayed time today, as the replay's overall gain."""
    total = sum(d.weight for d in found)
    return round(sum(d.gain * d.weight for d in found) / total, 4) if total > 0 else None


def figures(found: list[AsApplied]) -> dict[str, Any] | None:
    """What a run keeps of :func:`as_applied` in its JSON (``as_applied``); None where no disk was replayed."""
    if not found:
        return None
    return {"overall": overall(found), "areas": {name: gain for disk in found for name, gain in disk.areas.items()},
            "mapped": min(d.mapped for d in found), "shifted": max(d.shifted for d in found),
            "disks": {d.disk: d.gain for d in found}}


def decomposed(run: dict[str, Any], keep: Path | None = None) -> list[dict[str, Any]]:
    """Per workload of *run* (a ``--json`` document) and per row of its table with a replayed figure:
    measured (the figure the replay is judged by), replayed under the plan, replayed as applied. The
    replay as applied is made again from *keep* where it kept both traced sides, else taken from the
    run's own ``as_applied``."""
    config = run.get("config") or {}
    rows = []
    for result in run["results"]:
        found = result.get("as_applied")
        if keep is not None:
            kept = keep / result["workload"]
            before, after = kept / "workload-before-traced.json", kept / "workload-after-traced.json"
            if before.is_file() and after.is_file():
                path = result_path(result, "report", kept, "before") if told_path(result, "report") else None
                found = figures(as_applied(before, after, config.get("preset") or PRESET,  # as the plan's report
                                           config.get("time_scale") or 1.0, path.seen_ms if path else 0.0))
        if not found:
            continue
        areas = {"overall"} | {str(a["name"]) for a in result["areas"]}  # the rows of the workload's areas
        for row in compare(result)["rows"]:
            area = str(row["area"])
            if row.get("replay") is None or area not in areas:
                continue
            rows.append({"workload": result["workload"], "area": area,
                         "measured": row.get("judged_by", row.get("measured")), "planned": row["replay"],
                         "as_applied": found["overall"] if area == "overall" else found["areas"].get(area),
                         "mapped": found["mapped"], "shifted": found["shifted"]})
    return rows


def render_decomposed(rows: list[dict[str, Any]], console: Console) -> None:
    """The table of :func:`decomposed`: each error split into the layout's part and the workload's."""
    table = Table(title="The replay's error split: where the files went, and what the workload did")
    for name in ("workload", "area", "measured", "replay (plan)", "as applied", "layout part", "workload part",
                 "mapped"):
        table.add_column(name, justify="left" if name in ("workload", "area") else "right")
    for row in rows:
        layout = _minus(row["planned"], row["as_applied"])
        work = _minus(row["as_applied"], row["measured"])
        table.add_row(row["workload"] if row["area"] == "overall" else "", row["area"], pct(row["measured"]),
                      pct(row["planned"]), pct(row["as_applied"]), _points(layout), _points(work),
                      "-" if row["mapped"] is None else f"{row['mapped'] * 100:.1f} %")
    console.print(table)


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _points(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f}"
