"""The replay of a traced workload: the self-check on today's layout, then the plan's layout.

For each disk a trace covers (``Workload.traces``, ``collect --trace``), the sound part of
the trace (:mod:`advisor.trace.soundness` names and drops the rest) is replayed on that
disk's drive model (:mod:`advisor.disk.replay`) twice:

1. under today's layout, and compared with the service times the same trace measured:
   the self-check. Beyond :data:`REPLAY_TOLERANCE` the model does not describe this disk
   under this workload (MODEL_DOES_NOT_FIT) and the plan is not carried out on its word;
2. under the planned layout: each area's extents laid end to end from its planned zone
   start (files in order, each file in file order), every other request where it was. Under
   a tier plan (``--target``) each request goes to its area's device of the inventory, a
   drive or a flat device (:mod:`advisor.engine.replay_tiers`,
   :mod:`advisor.disk.replay_devices`).

The gain is 1 - planned / today, both replayed, so the model's own bias cancels; it is the
plan's verdict where a replay exists, shown beside the aggregate model's figure.

A disk with a queue (busy :data:`~advisor.engine.saturation.BUSY_MIN` of the traced span or more, or
two requests in flight on average) is judged by the drive's busy time in the same replays instead
(:mod:`advisor.engine.replay_saturated`):
today's against the time the trace had the disk busy (the self-check that decides ``fits``), and
1 - planned / today of it for the gain; the per-request figures stay beside it.

Rotational phases: where the platter stood when the trace began is not in the trace, and on
a queue the drive reorders (a scan that streams from the read-ahead or starves behind the
other reads) one phase can move the replayed mean by tens of percent. Each layout is
therefore replayed under several phases spread evenly over a revolution
(:func:`replay_phases`, :func:`phased_replays`), today's and the planned layout under the
same ones (paired). The self-check compares the measured mean with the mean over the phases,
the gain is 1 - mean planned / mean today, and the check keeps the lowest and highest
per-phase deviation and gain: the spread one replay would have drawn from.

Cache flushes: each flush belongs to the write it follows (:mod:`advisor.trace.links`),
and its time counts in that write's area. An area's row is the time of its reads and writes **and of the flushes
they own**, per read or write, measured and replayed alike: a commit's WAL time is its
write and its flush, as the database waits for both. The self-check (and the disk's
replayed gain) compares the mean time of the reads, writes and flushes, on both sides: a
write and the flush after it split one commit's wait in a way the host decides (a write
the host's path delays reaches the drive later, and its flush then waits less for the
sector to come round: the commit ends at the same turn of the platter), so the writes
alone would charge the drive with the host's delay.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np

from advisor.disk.mechanism import Geometry
from advisor.disk.media.build import DeviceModel
from advisor.disk.physics import DiskPhysics, ModelPhysics
from advisor.disk.replay import Replayed, Stream, located, replay
from advisor.disk.replay_devices import replay_on_devices
from advisor.engine.model_fit import Misfit
from advisor.engine.replay_barriers import (
    barrier_fields,
    barrier_notes,
    barriers,
    behind_flushes,
    with_commit_waits,
)
from advisor.engine.replay_issuers import indexes_table, issuer_names, named_issuer_rows, per_request_ms
from advisor.engine.replay_layout import area_of_requests, planned_offsets
from advisor.engine.replay_noise import (
    GAIN_WINDOWS,
    busy_costs,
    clears,
    combined_error,
    gain_error,
    time_costs,
    total_error,
    windows_of,
)
from advisor.engine.replay_phase import AREA_PHASE_SPREAD, phase_spread, unsteady_notes
from advisor.engine.replay_saturated import BusyCheck, busy_check, busy_times, request_misses_note
from advisor.engine.replay_starved import Starved, starved, starved_note
from advisor.engine.replay_tiers import TierRoute, tier_route
from advisor.engine.saturation import BUSY_MIN
from advisor.errors import BadInput
from advisor.model import BlockTrace, FileRate, Finding, Plan, ReplayArea, ReplayCheck, Workload
from advisor.trace.codec import FIRST_ENCODING, FLUSH, READ, SECTOR_BYTES, WRITE, Requests
from advisor.trace.cross_disk import latest_elsewhere
from advisor.trace.intervals import mean_in_flight, union_seconds
from advisor.trace.links import flush_owners
from advisor.trace.soundness import Assessment, assess

REPLAY_TOLERANCE = 0.15
"""Largest |replayed / measured - 1| for which the model fits: of the mean service time, or on a disk
with a queue of the drive's busy time (:mod:`advisor.engine.replay_saturated`)."""

OVERLAP_NOTED = 0.01
"""A note says so when this share of the requests or more overlapped (:func:`overlapped`) in the replay."""

REPLAY_PHASES = 8
"""Rotational phases a trace is replayed under, evenly spread over a revolution (each layout)."""

PHASED_REQUESTS = 800_000
"""Most requests the replays of one layout replay in all: a trace of more than
PHASED_REQUESTS / REPLAY_PHASES (100,000) requests gets fewer phases, at least one, so the
replays of a layout cost at most about 20 s on a loaded 2-core host at 24 µs a request
(benchmarks/replay_bench.py); from 400,001 requests on, one phase, as before phases."""


def replay_phases(requests: int) -> tuple[float, ...]:
    """The rotational phases (turns) a trace of *requests* is replayed under: REPLAY_PHASES, fewer
    for a big trace (PHASED_REQUESTS), evenly spread from 0 so they cover the revolution.

    >>> replay_phases(1000)
    (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875)
    >>> replay_phases(300_000)
    (0.0, 0.5)
    """
    count = max(1, min(REPLAY_PHASES, PHASED_REQUESTS // max(requests, 1)))
    return tuple(k / count for k in range(count))


def _stream(requests: Requests, elsewhere_s: np.ndarray | None = None) -> Stream:
    return Stream(requests.sector * SECTOR_BYTES, requests.sectors * SECTOR_BYTES, requests.op,
                  requests.process, requests.issue_s, requests.complete_s, requests.fua, elsewhere_s)


def caused_elsewhere(trace: BlockTrace, requests: Requests, workload: Workload,
                     assessed: Sequence[Assessment] | None = None) -> np.ndarray | None:
    """Per request of *trace*, its process's latest completion on another disk the workload traced on
    the same clock (:func:`advisor.trace.cross_disk.latest_elsewhere`); None when it traced no other disk.
    *assessed*: every trace of the workload already assessed (in order), so none is decoded again."""
    others = []
    for index, other in enumerate(workload.traces):
        if other.disk == trace.disk or other.clock != trace.clock:
            continue
        sound = (assessed[index] if assessed is not None else assess(other, workload.layout)).requests
        if sound is not None and len(sound) and indexes_table(other.processes, sound.process):
            table = np.array([p.pid for p in other.processes], dtype=np.int64)
            others.append((table[sound.process], sound.complete_s))
    if not others or not indexes_table(trace.processes, requests.process):
        return None
    pids = np.array([p.pid for p in trace.processes], dtype=np.int64)[requests.process]
    return latest_elsewhere(pids, requests.issue_s, others)



def _replay(physics: ModelPhysics, stream: Stream, disk_bytes: int, phase: float,
            extents: dict[tuple[int, int], Geometry] | None = None) -> Replayed:
    """The replay on the clock the disk runs on: at time scale S the traced times are read S
    times slower (the drive's own clock, as the emulator's virtual clock) and the replayed ones
    S times faster again, so queueing behind the traced arrivals is the disk's."""
    scale = physics.time_scale
    if scale == 1.0:
        return replay(physics.model, stream, disk_bytes, phase=phase, located=extents)
    slow = Stream(stream.offset_bytes, stream.length_bytes, stream.op, stream.process,
                  stream.issue_s * scale, stream.complete_s * scale, stream.fua,
                  None if stream.elsewhere_s is None else stream.elsewhere_s * scale)
    done = replay(physics.model, slow, disk_bytes, phase=phase, located=extents)
    return Replayed(done.issue_s / scale, done.complete_s / scale, done.queue_depth)


def phased_replays(physics: ModelPhysics, stream: Stream, disk_bytes: int,
                   phases: Sequence[float]) -> tuple[Replayed, ...]:
    """*stream* replayed once per rotational phase of *phases*, in their order: today's layout and
    the planned one are replayed under the same phases, so the k-th of each pair up. The extents
    are located once for all the phases (the geometry does not depend on the phase)."""
    extents = located(physics.model, stream, disk_bytes) if len(phases) > 1 else None
    return tuple(_replay(physics, stream, disk_bytes, phase, extents) for phase in phases)


def _phase_means(replays: Sequence[Replayed], mask: np.ndarray) -> np.ndarray:
    """Each phase's mean time of the requests of *mask* (seconds)."""
    return np.array([float(r.service_s[mask].mean()) for r in replays])


def _spread(values: np.ndarray) -> tuple[float, float] | None:
    """The lowest and highest of per-phase figures, rounded as the check's; None for one phase."""
    return (round(float(values.min()), 4), round(float(values.max()), 4)) if len(values) > 1 else None


def busy_share(issue_s: np.ndarray, complete_s: np.ndarray, busy_s: float | None = None) -> float | None:
    """Share of the span from the first issue to the last completion with at least one request in flight;
    *busy_s* that time in flight, where the caller already measured it (:func:`union_seconds`).

    The kernel's busy share (io_ticks) is over the collect's whole interval, whose first and last
    seconds may see no workload (connecting, starting the clients): a disk busy all the time the
    workload ran can show under 90 % there. The trace's span is the time requests were sent.

    >>> busy_share(np.array([0.0, 0.5, 3.0]), np.array([1.0, 2.0, 4.0]))
    0.75
    """
    if not len(issue_s):
        return None
    span = float(complete_s.max() - issue_s.min())
    if span <= 0:
        return None
    return round((union_seconds(issue_s, complete_s) if busy_s is None else busy_s) / span, 4)


def overlapped(process: np.ndarray, issue_s: np.ndarray, complete_s: np.ndarray,
               replays: Sequence[Replayed]) -> int:
    """Requests issued before the previous request of their process completed in a replay, where
    the trace had that one complete first, the mean over *replays*: more in flight per process
    than the disk saw.

    A request linked to another process's request waits in the replay for that link alone
    (:mod:`advisor.disk.replay`); when the replay serves the link sooner than the process's own
    last request, the process has two requests out where the trace had one (docs/accuracy.md:
    TPC-B's synchronous clients had three or four), and the replay's queue is deeper than the
    disk's was. The pairs of successive requests of a process are found once for all replays.

    >>> p = np.array([0, 0, 1, 1]); i = np.array([0.0, 2.0, 0.0, 2.0]); c = np.array([1.0, 3.0, 1.0, 3.0])
    >>> overlapped(p, i, c, [Replayed(np.array([0.0, 0.5, 0.0, 2.0]), c, 1), Replayed(i, c, 1)])
    0
    >>> overlapped(p, i, c, [Replayed(np.array([0.0, 0.5, 0.0, 0.5]), c, 1)])
    2
    """
    order = np.lexsort((issue_s, process))
    same = process[order][1:] == process[order][:-1]
    before, after = order[:-1][same], order[1:][same]
    apart = issue_s[after] >= complete_s[before]
    before, after = before[apart], after[apart]
    counts = [int((r.issue_s[after] < r.complete_s[before]).sum()) for r in replays]
    return round(sum(counts) / len(counts)) if counts else 0


def _mean_ms(values: np.ndarray, mask: np.ndarray) -> float:
    return round(float(values[mask].mean()) * 1000.0, 4)


@dataclass(frozen=True)
class SelfCheck:
    """A trace's sound requests replayed under today's layout, made before the plan: whether the
    replay fits decides which model judges the disk (:func:`replay_fits`), and the planned
    replay reuses it rather than replaying today's layout twice."""

    physics: ModelPhysics
    requests: Requests
    stream: Stream
    phases: tuple[float, ...]  # the rotational phases replayed (turns), the planned replay's too
    today: tuple[Replayed, ...]  # one replay per phase
    today_phase_ms: np.ndarray  # each phase's mean time of the timed requests (ms), for the gain's spread
    data: np.ndarray  # the reads and writes
    timed: np.ndarray  # what the self-check compares: reads, writes and (timed) flushes
    measured_ms: float
    replayed_ms: float  # the mean over the phases
    deviation: float | None  # of the mean over the phases
    deviations: tuple[float, float] | None  # the lowest and highest per-phase deviation
    fits: bool
    notes: tuple[str, ...]
    busy: float | None  # :func:`busy_share` of the sound requests as measured
    in_flight: float | None  # their mean in flight (:func:`advisor.trace.intervals.mean_in_flight`)
    overlapped: int  # :func:`overlapped` in today's replays, the mean over the phases
    starved: Starved  # the timed requests that starved, measured and replayed (:mod:`.replay_starved`)
    busy_time: BusyCheck | None  # a queued disk's busy time (:mod:`.replay_saturated`), which then decides *fits*


def self_check(trace: BlockTrace, workload: Workload, physics: DiskPhysics,
               assessed: Sequence[Assessment] | None = None) -> SelfCheck | ReplayCheck:
    """The self-check of one trace, or the ReplayCheck that says in a line why it was not replayed;
    *assessed* as :func:`caused_elsewhere`'s (:func:`self_checks` passes it)."""
    try:
        sound = assess(trace, workload.layout) if assessed is None else assessed[workload.traces.index(trace)]
        return _self_check(trace, workload, physics, sound, assessed)
    except BadInput as exc:
        return _refused(trace, (), f"trace of {trace.disk}: {exc.one_line()}; no replay")


def self_checks(workload: Workload, physics_of: Callable[[str], DiskPhysics]) -> list[SelfCheck | ReplayCheck]:
    """The self-check of every trace of *workload*, each trace decoded and assessed once: a disk's replay
    reads the other traced disks' completions (:func:`caused_elsewhere`), which would otherwise decode
    each of N traces N times. A trace that cannot be decoded is refused in its own check."""
    assessed = []
    for trace in workload.traces:
        try:
            assessed.append(assess(trace, workload.layout))
        except BadInput as exc:
            assessed.append(Assessment(None, refused=f"trace of {trace.disk}: {exc.one_line()}; no replay"))
    return [self_check(trace, workload, physics_of(trace.disk), assessed) for trace in workload.traces]


def replay_fits(checks: Sequence[SelfCheck | ReplayCheck], traces: Sequence[BlockTrace]) -> frozenset[str]:
    """Disks a replay judges: every trace of the disk replayed and fitting its measured times."""
    fits: dict[str, bool] = {}
    for trace, check in zip(traces, checks, strict=True):
        fits[trace.disk] = fits.get(trace.disk, True) and isinstance(check, SelfCheck) and check.fits
    return frozenset(disk for disk, ok in fits.items() if ok)


def with_overruled(check: ReplayCheck, overruled: Misfit) -> ReplayCheck:
    """*check* with a note of why the aggregate model's disk-time refutation of its disk is a note, not a verdict."""
    return msgspec.structs.replace(check, aggregate_refuted=True, notes=(*check.notes,
        f"{check.disk}: the aggregate model charges {overruled.measured:.0f} % of the interval in disk time, "
        f"more than the {overruled.allowed:.0f} % it may (DISK_TIME_SLACK x the kernel's busy time): it "
        f"serves one IO at a time, while up to {check.queue_depth} requests were in flight and the drive "
        f"reorders them. The replay, which models the queue and fits the measured times "
        f"(±{check.tolerance:.0%}), judges this disk and its plan."))


def check_trace(trace: BlockTrace, workload: Workload, physics: DiskPhysics, plan: Plan | None,
                rates: Sequence[FileRate] | None = None, checked: SelfCheck | ReplayCheck | None = None,
                targets: Sequence[DeviceModel] = ()) -> ReplayCheck:
    """The replay of one trace (see the module docstring); *rates* are the ones the engine made
    its areas of (the calibrated rates: they decide which objects are placed alone); *checked*
    the trace's :func:`self_check` when already made; *targets* the inventory's devices a tier
    plan (``--target``) places areas on. A trace whose data cannot be read is refused in a
    line: the rest of the report does not need it."""
    today = self_check(trace, workload, physics) if checked is None else checked
    if isinstance(today, ReplayCheck):
        return today
    try:
        return _judged(trace, today, plan, workload.rates if rates is None else rates, targets)
    except BadInput as exc:
        return _refused(trace, today.notes, f"trace of {trace.disk}: {exc.one_line()}; no replay")


def _refused(trace: BlockTrace, notes: tuple[str, ...], why: str | None) -> ReplayCheck:
    return ReplayCheck(trace.disk, notes=notes, refused=why, tolerance=REPLAY_TOLERANCE)


def _self_check(trace: BlockTrace, workload: Workload, physics: DiskPhysics, sound: Assessment,
                assessed: Sequence[Assessment] | None) -> SelfCheck | ReplayCheck:
    notes = tuple(sound.notes)
    if sound.requests is None:
        return _refused(trace, notes, sound.refused)
    if not isinstance(physics, ModelPhysics) or physics.rpm is None:
        return _refused(trace, notes, f"trace of {trace.disk}: its model ({physics.name}) has no moving head to "
                        "replay on; no replay")
    requests = sound.requests
    stream = _stream(requests, caused_elsewhere(trace, requests, workload, assessed))
    data = (requests.sectors > 0) & ((requests.op == READ) | (requests.op == WRITE))
    if not data.any():
        return _refused(trace, notes, f"trace of {trace.disk}: no read or write to replay; no replay")
    phases = replay_phases(len(requests))
    if len(phases) < REPLAY_PHASES:
        notes += (f"trace of {trace.disk}: {len(requests):,} requests, replayed under {len(phases)} rotational "
                  f"phase{'s' if len(phases) > 1 else ''} rather than {REPLAY_PHASES} (at most "
                  f"{PHASED_REQUESTS:,} requests replayed per layout)",)
    today = phased_replays(physics, stream, trace.disk_size_bytes, phases)
    flushes_timed = requests.op == FLUSH
    if trace.encoding == FIRST_ENCODING and flushes_timed.any():
        notes += (f"trace of {trace.disk}: written by an advisor that paired each flush with the end of an fsync, "
                  f"not its own completion (encoding {FIRST_ENCODING}): the measured times of its "
                  f"{int(flushes_timed.sum())} flushes are not the drive's; the self-check and the areas compare "
                  "reads and writes alone (collect the trace again for its flushes)",)
        flushes_timed = np.zeros(len(requests), dtype=np.bool_)
    timed = data | flushes_timed  # what the self-check and the gain compare (module docstring)
    measured_ms = _mean_ms(requests.service_s, timed)
    per_phase_ms = _phase_means(today, timed) * 1000.0
    replayed_ms = round(float(per_phase_ms.mean()), 4)
    deviation = replayed_ms / measured_ms - 1.0 if measured_ms > 0 else None
    deviations = _spread(per_phase_ms / measured_ms - 1.0) if measured_ms > 0 else None
    busy_s = union_seconds(requests.issue_s, requests.complete_s)
    busy = busy_share(requests.issue_s, requests.complete_s, busy_s)
    in_flight = mean_in_flight(requests.issue_s, requests.complete_s)
    worked = busy_check(busy_s, busy, in_flight, today, REPLAY_TOLERANCE)
    fits = worked.fits if worked is not None else deviation is not None and abs(deviation) <= REPLAY_TOLERANCE
    over = overlapped(requests.process, requests.issue_s, requests.complete_s, today)
    if over >= OVERLAP_NOTED * len(requests):
        notes += (f"trace of {trace.disk}: in the replay {over:,} requests ({over / len(requests):.0%}) went out "
                  "before their process's previous request completed, which the trace had complete first: the "
                  "replay held more requests in flight than the disk saw (on a saturated disk its self-check then "
                  "varies between traces of the same workload; docs/accuracy.md)",)
    tail = starved(requests.service_s, [r.service_s for r in today], timed)
    said = starved_note(trace.disk, tail, deviation, REPLAY_TOLERANCE)
    notes += (said,) if said else ()
    said = request_misses_note(trace.disk, deviation, worked) if worked is not None else None
    notes += (said,) if said else ()
    return SelfCheck(physics, requests, stream, phases, today, per_phase_ms, data, timed, measured_ms, replayed_ms,
                     deviation, deviations, fits, notes, busy, in_flight, over, tail, worked)


def _judged(trace: BlockTrace, checked: SelfCheck, plan: Plan | None, rates: Sequence[FileRate],
            targets: Sequence[DeviceModel]) -> ReplayCheck:
    requests, stream, today, data, timed = checked.requests, checked.stream, checked.today, checked.data, checked.timed
    notes, replayed_ms, deviation = checked.notes, checked.replayed_ms, checked.deviation
    owners = flush_owners(requests)
    flushes_timed = timed & ~data
    areas, area_files = area_of_requests(trace, rates, stream.offset_bytes)
    names = np.array([a or "" for a in areas], dtype=object)
    owned = owners >= 0
    names = np.where(owned, names[np.maximum(owners, 0)], np.where(data, names, ""))
    planned, spread, said = _planned(trace, checked, plan, targets, area_files, [n or None for n in names.tolist()])
    notes += said
    planned_ms = gains = request_gain = None
    if planned is not None:
        planned_phase_ms = _phase_means(planned, timed) * 1000.0
        planned_ms = round(float(planned_phase_ms.mean()), 4)
        gains = _spread(1.0 - planned_phase_ms / checked.today_phase_ms)
        request_gain = round(1.0 - planned_ms / replayed_ms, 4) if replayed_ms else None
    worked, planned_busy = checked.busy_time, None
    gain = request_gain
    if worked is not None and planned is not None:
        planned_busy = busy_times(planned)
        gains = _spread(1.0 - planned_busy / worked.today_s)
        gain = round(_gain_of(checked, planned), 4)
    windowed = _gain_error(checked, planned) if planned is not None else None
    spread_gain = _gain_of(checked, spread) if spread is not None else None
    noise = total_error(windowed, gain, spread_gain)
    area_rows = []
    today_s = [r.service_s for r in today]  # each phase's times, taken once for every area and issuer
    planned_s = [r.service_s for r in planned] if planned is not None else None
    waited, flush = behind_flushes(requests.op, requests.issue_s, requests.complete_s)
    named = issuer_names(trace.processes, requests.process, owners, data)  # None: no issuer to tell
    issuers = (named_issuer_rows(named, requests.process, data, flushes_timed, requests.service_s, today_s,
                                 planned_s, waited) if named is not None else ())
    behind = barriers(checked.busy, issuers, named[0], waited, flush) if named is not None else None
    for area in sorted({a for a in areas if a}):
        mask, flushes = data & (names == area), flushes_timed & (names == area)
        if mask.any():
            measured = per_request_ms([requests.service_s], mask, flushes)
            replayed = per_request_ms(today_s, mask, flushes)
            off = round(replayed / measured - 1.0, 4) if measured > 0 else None
            varies = phase_spread(today_s, planned_s, mask, flushes) if planned_s is not None else None
            share, free = barrier_fields(behind, mask, float(requests.service_s[mask | flushes].sum()),
                                         planned_s is not None)
            area_rows.append(ReplayArea(area, int(mask.sum()), measured, replayed,
                                        per_request_ms(planned_s, mask, flushes) if planned_s is not None else None,
                                        flushes=int(flushes.sum()), deviation=off,
                                        fits=None if off is None else abs(off) <= REPLAY_TOLERANCE,
                                        phase_spread=varies,
                                        steady=None if varies is None else varies < AREA_PHASE_SPREAD,
                                        behind_commits=share, barrier_free=free))
    deviations = checked.deviations
    waits_said: tuple[str, ...] = ()
    if named is not None:
        issuers = with_commit_waits(behind, issuers, named[0], data, requests.service_s, flushes_timed)
        waits_said = barrier_notes(behind, issuers, named[0], data)
    return ReplayCheck(
        disk=trace.disk, requests=len(requests), queue_depth=today[0].queue_depth, measured_ms=checked.measured_ms,
        replayed_ms=replayed_ms, deviation=round(deviation, 4) if deviation is not None else None,
        tolerance=REPLAY_TOLERANCE, fits=checked.fits, planned_ms=planned_ms,
        predicted_gain=gain,
        aggregate_gain=plan.predicted_gain if plan is not None and planned is not None else None,
        measured_span_s=round(float(requests.complete_s.max() - requests.issue_s.min()), 4),
        replayed_span_s=_mean_span_s(today), planned_span_s=_mean_span_s(planned) if planned else None,
        areas=tuple(area_rows), traced_busy=checked.busy,
        notes=(notes + _area_misfits(checked, area_rows) + unsteady_notes(area_rows, len(checked.phases))
               + waits_said),
        phases=len(checked.phases),
        deviation_low=deviations[0] if deviations else None, deviation_high=deviations[1] if deviations else None,
        gain_low=gains[0] if gains else None, gain_high=gains[1] if gains else None,
        overlapped=checked.overlapped, issuers=issuers,
        mean_in_flight=round(checked.in_flight, 2) if checked.in_flight is not None else None,
        starved_measured=round(checked.starved.measured, 4),
        starved_replayed=round(checked.starved.replayed, 4), deviation_unstarved=checked.starved.deviation_without,
        gain_error=None if noise is None else round(noise, 4),
        window_error=None if windowed is None else round(windowed, 4),
        gain_windows=GAIN_WINDOWS if windowed is not None else None,
        spread_gain=None if spread_gain is None else round(spread_gain, 4),
        **_busy_fields(worked, planned_busy, request_gain),
    )


def _gain_of(checked: SelfCheck, replays: Sequence[Replayed]) -> float:
    """1 - planned / today for *replays* of a planned layout, on the check's basis."""
    if checked.busy_time is not None:
        return 1.0 - float(busy_times(replays).mean()) / checked.busy_time.replayed_s
    return 1.0 - float(_phase_means(replays, checked.timed).mean()) * 1000.0 / checked.replayed_ms


def _gain_error(checked: SelfCheck, planned: Sequence[Replayed]) -> float | None:
    """The standard error of the replayed gain over windows of the trace (:mod:`.replay_noise`): of the
    requests' shares of the busy time on a disk with a queue, else of the timed requests' times."""
    window = windows_of(checked.requests.issue_s)
    if checked.busy_time is not None:
        return gain_error(busy_costs(checked.today), busy_costs(planned), window)
    return gain_error(time_costs(checked.today, checked.timed), time_costs(planned, checked.timed), window)


def _busy_fields(worked: BusyCheck | None, planned: np.ndarray | None, request_gain: float | None) -> dict[str, Any]:
    """The ReplayCheck's figures of a queued disk's busy time (none where the disk had no queue)."""
    if worked is None:
        return {}
    return {"basis": "busy time", "measured_busy_s": round(worked.measured_s, 4),
            "replayed_busy_s": round(worked.replayed_s, 4), "busy_deviation": round(worked.deviation, 4),
            "planned_busy_s": round(float(planned.mean()), 4) if planned is not None else None,
            "request_gain": request_gain}


def _planned(trace: BlockTrace, checked: SelfCheck, plan: Plan | None, targets: Sequence[DeviceModel],
             area_files: dict[str, list[int]], owners_area: list[str | None]
             ) -> tuple[tuple[Replayed, ...] | None, tuple[Replayed, ...] | None, tuple[str, ...]]:
    """The replays under *plan* (one per phase of the self-check), or None and the note why there are none;
    and under a zone plan the replays with each moved area as spread as today (:mod:`.replay_layout`): the
    same replays where that puts every request where laying end to end does (no gap to keep), None under a
    tier plan.

    A zone plan lays out this disk's areas in place; a tier plan sends each request to its area's
    device of the inventory (*targets*)."""
    if plan is None:
        return None, None, ()
    stream, physics = checked.stream, checked.physics
    if plan.tiers is None:
        offsets = planned_offsets(trace, plan, area_files, stream.offset_bytes)
        if offsets is None:
            elsewhere = ", ".join(sorted({p.disk for p in plan.partitions}))
            return None, None, (f"trace of {trace.disk}: the plan lays out {elsewhere}, not this disk; "
                                "no replay under it",)
        laid = phased_replays(physics, stream.moved(offsets), trace.disk_size_bytes, checked.phases)
        kept = planned_offsets(trace, plan, area_files, stream.offset_bytes, spread=True)
        if kept is None or np.array_equal(kept, offsets):
            return laid, laid, ()
        return laid, phased_replays(physics, stream.moved(kept), trace.disk_size_bytes, checked.phases), ()
    if not targets:
        route: TierRoute | str = f"trace of {trace.disk}: no inventory given"
    elif physics.time_scale != 1.0:
        route = (f"trace of {trace.disk}: its model runs at --time-scale {physics.time_scale:g}, the inventory's "
                 "devices on their own clock")
    else:
        route = tier_route(trace, plan, targets, area_files, owners_area, stream.offset_bytes)
    if isinstance(route, str):
        return None, None, (f"{route}; no replay under the tier plan",)
    return tuple(replay_on_devices(stream.moved(route.offset_bytes), route.device, route.devices, phase=phase)
                 for phase in checked.phases), None, route.notes


def _mean_span_s(replays: Sequence[Replayed]) -> float:
    return round(sum(r.span_s for r in replays) / len(replays), 4)


AREA_WEIGHT_NOTED = 0.1
"""An area holding this share of the disk's measured time or more is named when the replay misjudges it."""


def _area_misfits(checked: SelfCheck, rows: Sequence[ReplayArea]) -> tuple[str, ...]:
    """A note per area of weight whose replayed time misses its measured time beyond the tolerance, on a
    disk whose self-check fits (MODEL_DOES_NOT_FIT says it of every area on one that does not).

    The disk's self-check compares the mean of every request; an area can miss while the mean
    fits, and its planned figure is then no prediction. On a saturated disk it weighs more: the
    areas share one queue, and the replay keeps each area's traced requests, so it cannot say
    which area takes the time a faster layout frees (docs/report.md)."""
    total = sum(r.measured_ms * r.requests for r in rows)
    if not checked.fits:  # the disk's own misfit says it for every area
        return ()
    queue = (f"; the disk is saturated (busy {checked.busy:.0%} of the traced span), so the areas share its queue "
             "and the replay cannot say which of them takes the time a faster layout frees"
             if checked.busy is not None and checked.busy >= BUSY_MIN else "")
    notes = []
    for row in rows:
        if row.fits is not False or total <= 0 or row.measured_ms * row.requests / total < AREA_WEIGHT_NOTED:
            continue
        assert row.deviation is not None  # fits is only False with a deviation
        notes.append(
            f"{row.area}: replayed {row.replayed_ms:.2f} ms per request, measured {row.measured_ms:.2f} ms "
            f"({row.deviation:+.0%}, tolerance ±{REPLAY_TOLERANCE:.0%}): the model does not describe this area's "
            "requests, and its planned time is no prediction" + queue)
    return tuple(notes)


def misfit(check: ReplayCheck, model: str) -> Finding:
    """MODEL_DOES_NOT_FIT from a replay whose self-check failed: of its requests' times, or of a
    queued disk's busy time (``basis`` "busy time")."""
    evidence: dict[str, float | int | str | None]
    if check.basis == "busy time" and check.replayed_busy_s is not None and check.measured_busy_s is not None:
        title = (f"{check.disk}: with a queue, the traced requests replayed on {model} keep the drive busy "
                 f"{check.replayed_busy_s:.1f} s, the disk was busy {check.measured_busy_s:.1f} s "
                 f"({check.busy_deviation:+.0%}, tolerance ±{check.tolerance:.0%})")
        evidence = {"measure": "replayed busy time", "measured": check.measured_busy_s,
                    "allowed": check.replayed_busy_s, "deviation": check.busy_deviation}
    else:
        title = (f"{check.disk}: the traced requests replayed on {model} take {check.replayed_ms:.2f} ms each, "
                 f"the disk measured {check.measured_ms:.2f} ms ({check.deviation:+.0%}, tolerance "
                 f"±{check.tolerance:.0%})")
        evidence = {"measure": "replayed service time", "measured": check.measured_ms,
                    "allowed": check.replayed_ms, "deviation": check.deviation}
    return Finding(
        code="MODEL_DOES_NOT_FIT", severity="medium", subject=check.disk, title=title,
        evidence={"disk": check.disk, "model": model, **evidence, "tolerance": check.tolerance,
                  "requests": check.requests},
        predicted_gain=None,
        action=("The model does not describe this disk under this workload: its replayed gain is not a "
                "prediction. Bench the device (advisor bench) and report with --disk, or name the right "
                "model with --preset/--spec."),
    )


def judging_checks(checks: Sequence[ReplayCheck]) -> list[ReplayCheck]:
    """The checks that judge a plan: replayed under the planned layout and not refused."""
    return [c for c in checks if c.refused is None and c.planned_ms is not None]


def replayed_gain(checks: Sequence[ReplayCheck]) -> float | None:
    """The replayed gain a plan is judged by (:func:`verdict`): the requests-weighted gain of the
    disks it lays out; None when no check judges it or a self-check failed (the plan is refused)."""
    judged = judging_checks(checks)
    if not judged or any(not c.fits for c in judged):
        return None
    weight = sum(c.requests for c in judged)
    return sum((c.predicted_gain or 0.0) * c.requests for c in judged) / weight


def replayed_error(checks: Sequence[ReplayCheck]) -> float | None:
    """The standard error of :func:`replayed_gain` (the disks' errors combined by the same weights);
    None where a disk's is unknown."""
    judged = judging_checks(checks)
    return combined_error([c.gain_error for c in judged], [float(c.requests) for c in judged]) if judged else None


def verdict(plan: Plan, checks: Sequence[ReplayCheck], min_gain: float) -> Plan:
    """*plan* judged by the replay where one exists: refused on a failed self-check, else by
    the replayed gain of the disks it lays out (requests-weighted, :func:`replayed_gain`), against *min_gain*."""
    judged = judging_checks(checks)
    if not judged:
        return plan
    failed = [c for c in judged if not c.fits]
    notes = list(plan.notes)
    if failed:
        failure = "the replay's self-check failed on " + ", ".join(c.disk for c in failed) + " (MODEL_DOES_NOT_FIT)"
        return msgspec.structs.replace(plan, not_worth_it=failure)
    gain = replayed_gain(judged)
    assert gain is not None  # judged checks that all fit
    error = replayed_error(judged)
    worked = [c.disk for c in judged if c.basis == "busy time" and c.planned_busy_s is not None]
    of_work = (f"; on {', '.join(worked)}, which had a queue, that is less drive busy time for the traced work, "
               "which a queued disk turns into more work at the same concurrency" if worked else "")
    noise = "" if error is None else f" ± {error:.1%}"
    placed = " and of where the file system puts a moved area" if any(c.spread_gain is not None for c in judged) else ""
    windows = "" if error is None else f"± its standard uncertainty, of {GAIN_WINDOWS} windows of the trace{placed}; "
    notes.append(f"The replay of the traced requests predicts {gain:.1%}{noise} ({windows}the aggregate model: "
                 f"{plan.predicted_gain:.1%}){of_work}; the verdict follows the replay.")
    reason: str | None = None
    if gain < min_gain:
        reason = f"the replayed gain, {gain:.1%}, is under the {min_gain:.0%} a migration must bring (--min-gain)"
    elif not clears(gain, error, min_gain):
        reason = (f"the replayed gain, {gain:.1%}{noise} (its standard uncertainty), does not clear the "
                  f"{min_gain:.0%} a migration must bring (--min-gain) by that uncertainty: the trace cannot tell "
                  "it from the threshold")
    return msgspec.structs.replace(plan, notes=tuple(notes), not_worth_it=reason)
