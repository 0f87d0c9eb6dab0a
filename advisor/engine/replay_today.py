"""The self-check of a traced workload: its sound requests replayed under today's layout.

Before a plan is judged on a trace (:mod:`advisor.engine.replay_check`), the sound part of the
trace (:mod:`advisor.trace.soundness` names and drops the rest) is replayed on its disk's drive
model (:mod:`advisor.disk.replay`) under today's layout and compared with the service times the
same trace measured. Beyond :data:`REPLAY_TOLERANCE` the model does not describe this disk under
this workload (MODEL_DOES_NOT_FIT) and no plan is carried out on its word; where every trace of
a disk fits, the replay rather than the aggregate model judges that disk (:func:`replay_fits`).
The planned replay reuses the :class:`SelfCheck` instead of replaying today's layout again.

A disk with a queue (two requests in flight on average or more,
:func:`~advisor.engine.replay_saturated.queued`) is judged by the drive's busy time in the same replays
(:mod:`advisor.engine.replay_saturated`); the per-request figures stay beside it.

Rotational phases: where the platter stood when the trace began is not in the trace, and on a
queue the drive reorders (a scan that streams from the read-ahead or starves behind the other
reads) one phase can move the replayed mean by tens of percent. Each layout is therefore
replayed under several phases spread evenly over a revolution (:func:`replay_phases`,
:func:`phased_replays`), the planned layout under the same ones (paired). The self-check
compares the measured mean with the mean over the phases and keeps the lowest and highest
per-phase deviation: the spread one replay would have drawn from.

What is compared is the mean time of the reads, the writes and the cache flushes, measured and
replayed alike (:mod:`advisor.engine.replay_check` says why a flush counts with its write).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from advisor.disk.mechanism import Geometry
from advisor.disk.physics import DiskPhysics, ModelPhysics
from advisor.disk.replay import Replayed, Stream, causes, located, replay
from advisor.disk.replay_stream import IntArray
from advisor.engine.replay_issuers import indexes_table, named
from advisor.engine.replay_saturated import BusyCheck, busy_check, request_misses_note
from advisor.engine.replay_starved import Starved, starved, starved_note
from advisor.errors import BadInput
from advisor.model import BlockTrace, ReplayCheck, TraceProcess, Workload
from advisor.trace.codec import FIRST_ENCODING, FLUSH, READ, SECTOR_BYTES, WRITE, ExtentTable, Requests, decode_extents
from advisor.trace.cross_disk import latest_elsewhere
from advisor.trace.extents import file_positions
from advisor.trace.intervals import mean_in_flight, union_seconds
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


def _stream(requests: Requests, elsewhere_s: np.ndarray | None = None,
            processes: Sequence[TraceProcess] | None = None, extents: ExtentTable | None = None) -> Stream:
    offsets = requests.sector * SECTOR_BYTES
    return Stream(offsets, requests.sectors * SECTOR_BYTES, requests.op,
                  requests.process, requests.issue_s, requests.complete_s, requests.fua, elsewhere_s,
                  sessions_of(processes, requests.process) if processes is not None else None,
                  file_positions(offsets, extents) if extents is not None and len(extents.file) else None)


def sessions_of(processes: Sequence[TraceProcess], process: np.ndarray) -> np.ndarray | None:
    """Per request, whether its process served a database as the collector named it (a client
    backend, a parallel or autovacuum worker); None when no process is named or the requests'
    process column does not index *processes*: then nobody is known to be a session.

    >>> sessions_of([TraceProcess(7, "postgres", "ledger", "client backend"), TraceProcess(3, "kworker/0:1H")],
    ...             np.array([0, 1, 0])).tolist()
    [True, False, True]
    """
    if not named(processes) or not indexes_table(processes, process):
        return None
    serves: np.ndarray = np.array([p.database is not None for p in processes], dtype=bool)[process]
    return serves


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
            extents: dict[tuple[int, int], Geometry] | None = None,
            linked: tuple[IntArray, IntArray] | None = None) -> Replayed:
    """The replay on the clock the disk runs on: at time scale S the traced times are read S
    times slower (the drive's own clock, as the emulator's virtual clock) and the replayed ones
    S times faster again, so queueing behind the traced arrivals is the disk's. The drive sits behind
    the physics' path (``--path-ms``), a host's time like the trace's."""
    scale = physics.time_scale
    if scale == 1.0:
        return replay(physics.model, stream, disk_bytes, phase=phase, located=extents, linked=linked,
                      path_s=physics.path_s)
    slow = replace(stream, issue_s=stream.issue_s * scale, complete_s=stream.complete_s * scale,
                   elsewhere_s=None if stream.elsewhere_s is None else stream.elsewhere_s * scale)
    done = replay(physics.model, slow, disk_bytes, phase=phase, located=extents, linked=linked,
                  path_s=physics.path_s * scale)  # the host's time, read on the drive's clock as the trace's
    return Replayed(done.issue_s / scale, done.complete_s / scale, done.queue_depth)


def phased_replays(physics: ModelPhysics, stream: Stream, disk_bytes: int, phases: Sequence[float],
                   linked: tuple[IntArray, IntArray] | None = None) -> tuple[Replayed, ...]:
    """*stream* replayed once per rotational phase of *phases*, in their order: today's layout and
    the planned one are replayed under the same phases, so the k-th of each pair up. The extents
    are located, and what each request waits for found (:func:`causes`, unless *linked* gives it),
    once for all the phases (neither depends on the phase)."""
    extents = located(physics.model, stream, disk_bytes) if len(phases) > 1 else None
    linked = linked if linked is not None or len(phases) < 2 else causes(stream)
    return tuple(_replay(physics, stream, disk_bytes, phase, extents, linked) for phase in phases)


def phase_means(replays: Sequence[Replayed], mask: np.ndarray) -> np.ndarray:
    """Each phase's mean time of the requests of *mask* (seconds)."""
    return np.array([float(r.service_s[mask].mean()) for r in replays])


def phase_range(values: np.ndarray) -> tuple[float, float] | None:
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
    linked: tuple[IntArray, IntArray]  # each request's cause and previous in the replay (:func:`causes`)
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
        return refused(trace, (), f"trace of {trace.disk}: {exc.one_line()}; no replay")


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



def refused(trace: BlockTrace, notes: tuple[str, ...], why: str | None) -> ReplayCheck:
    return ReplayCheck(trace.disk, notes=notes, refused=why, tolerance=REPLAY_TOLERANCE)


def _self_check(trace: BlockTrace, workload: Workload, physics: DiskPhysics, sound: Assessment,
                assessed: Sequence[Assessment] | None) -> SelfCheck | ReplayCheck:
    notes = tuple(sound.notes)
    if sound.requests is None:
        return refused(trace, notes, sound.refused)
    if not isinstance(physics, ModelPhysics) or physics.rpm is None:
        return refused(trace, notes, f"trace of {trace.disk}: its model ({physics.name}) has no moving head to "
                        "replay on; no replay")
    requests = sound.requests
    stream = _stream(requests, caused_elsewhere(trace, requests, workload, assessed), trace.processes,
                     decode_extents(trace.extents, len(trace.files)) if trace.extents else None)
    data = (requests.sectors > 0) & ((requests.op == READ) | (requests.op == WRITE))
    if not data.any():
        return refused(trace, notes, f"trace of {trace.disk}: no read or write to replay; no replay")
    phases = replay_phases(len(requests))
    if len(phases) < REPLAY_PHASES:
        notes += (f"trace of {trace.disk}: {len(requests):,} requests, replayed under {len(phases)} rotational "
                  f"phase{'s' if len(phases) > 1 else ''} rather than {REPLAY_PHASES} (at most "
                  f"{PHASED_REQUESTS:,} requests replayed per layout)",)
    linked = causes(stream)
    today = phased_replays(physics, stream, trace.disk_size_bytes, phases, linked)
    flushes_timed = requests.op == FLUSH
    if trace.encoding == FIRST_ENCODING and flushes_timed.any():
        notes += (f"trace of {trace.disk}: written by an advisor that paired each flush with the end of an fsync, "
                  f"not its own completion (encoding {FIRST_ENCODING}): the measured times of its "
                  f"{int(flushes_timed.sum())} flushes are not the drive's; the self-check and the areas compare "
                  "reads and writes alone (collect the trace again for its flushes)",)
        flushes_timed = np.zeros(len(requests), dtype=np.bool_)
    timed = data | flushes_timed  # what the self-check and the gain compare (module docstring)
    measured_ms = _mean_ms(requests.service_s, timed)
    per_phase_ms = phase_means(today, timed) * 1000.0
    replayed_ms = round(float(per_phase_ms.mean()), 4)
    deviation = replayed_ms / measured_ms - 1.0 if measured_ms > 0 else None
    deviations = phase_range(per_phase_ms / measured_ms - 1.0) if measured_ms > 0 else None
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
    return SelfCheck(physics, requests, stream, linked, phases, today, per_phase_ms, data, timed, measured_ms,
                     replayed_ms, deviation, deviations, fits, notes, busy, in_flight, over, tail, worked)
