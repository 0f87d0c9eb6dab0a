"""A saturated disk: what a faster layout gives there, and when the model charges more time than there was.

A disk busy 90 % of the interval or more (the kernel's io_ticks, diskstats ``util``; or of a trace's
span, where the workload was traced: the interval's first and last seconds may be idle), or whose
areas' rates times their modelled service times add up to the whole interval, has a queue.
Its clients then wait mostly for each other, so a layout that cuts the mean service time
does not shorten each wait much: at the same concurrency the disk does more work per
second instead, about the ratio of disk time per unit of the same work before and after.
The report says so, with the work gain and the area whose share of the disk time grows most
(the one that takes the freed time), instead of a shorter service time per IO.

A model that charges more disk time than the kernel measured the disk busy (io_ticks), by
more than :data:`DISK_TIME_SLACK`, does not describe the disk: the drive served the IOs faster than
the model can one at a time (a deep queue it reorders, a cache, or IO sizes and patterns
the workload does not show). That is a :class:`~advisor.engine.model_fit.Misfit`, and the
findings and plans that rest on the model are withheld for that disk, as for rates above
the model's best. Unless a trace of the disk replays within its tolerance
(:func:`advisor.engine.replay_today.replay_fits`): the replay models the queue the aggregate
model leaves out, so there the refutation is overruled (a note of the replay) and the replay
judges the plan.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

from advisor.disk.model import DiskModel
from advisor.disk.physics import ModelPhysics
from advisor.disk.simulate import StreamSpec, simulate
from advisor.engine.findings import DiskView
from advisor.engine.model_fit import Misfit
from advisor.model import DiskStatRate, Finding, Plan, ReplayCheck, Saturation

BUSY_MIN = 0.9
"""A disk busy this share of the interval or more (kernel io_ticks) is saturated."""

DISK_TIME_SLACK = 2.0
"""Modelled disk time above 2 x the disk's measured busy time refutes the model. A deep queue the drive
reorders serves random reads up to about 2 x faster than one at a time
(:data:`advisor.engine.model_fit.QUEUE_GAIN` says the same of the random-IOPS bound; 6-8
requests in flight on the emulated 7,200 rpm disk were served 26-43 % below the
one-at-a-time service time), so a model charging up to twice the busy time may still be right
about where the time goes; beyond that no queue explains it. The kernel's busy time also
counts other processes' IO, so the bound errs towards keeping the model. Where the kernel gives the
mean requests in flight, the model's disk time is already the one at that depth
(:func:`busy_at_depth`) and the slack is left for the rest (cache, other processes' IO)."""

QUEUE_SIMULATED_IOS = 2000
"""Requests simulated per queue depth for :func:`queue_gain` (about 0.05 s each; the gain repeats within 2 %)."""

DISK_TIME = "disk time"
"""The :attr:`Misfit.measure` of a disk-time refutation."""

MIN_UTIL = 0.01
"""A disk measured idle is compared as if busy 1 % of the interval (the kernel rounds io_ticks to jiffies)."""

MIN_JUDGED_BUSY = 0.25
"""A disk the model keeps busy under a quarter of the interval is not judged by its disk time: a
few IOs a second on a mostly idle disk say little about the model (its readahead, caches and
other processes weigh more than the platter)."""


def modelled_busy(view: DiskView) -> float:
    """Seconds of disk time per second the model charges the disk's areas, one IO at a time."""
    return sum(c.area.iops * ms for c, ms in zip(view.areas, view.times_ms, strict=True)) / 1000.0


NCQ_DEPTH = 32
"""The most requests a SATA drive queues (NCQ): deeper queues wait in the host, unreordered."""


def depth_in_flight(rate: DiskStatRate) -> float | None:
    """Mean requests in flight while the disk was busy, by Little's law: the kernel's completions per
    second times their mean time from issue to completion (``r_await``/``w_await``), over the busy
    share (iostat's ``aqu-sz`` / ``%util``). None where the kernel's awaits or busy time are unknown.

    >>> depth_in_flight(DiskStatRate("sda", 100.0, 0.0, 0.8, 0.0, 40.0, None, 0.5))
    8.0
    """
    in_flight = 0.0
    for per_s, await_ms in ((rate.r_s, rate.r_await_ms), (rate.w_s, rate.w_await_ms)):
        if per_s > 0 and await_ms is None:
            return None
        in_flight += per_s * (await_ms or 0.0) / 1000.0  # no reads (writes): the kernel gives no await
    return in_flight / min(rate.util, 1.0) if rate.util > 0 else None


def disk_depths(diskstats: Sequence[DiskStatRate]) -> dict[str, float]:
    """The mean requests in flight per whole disk, where the kernel's figures give it."""
    found = {d.name: depth_in_flight(d) for d in diskstats if not d.is_partition}
    return {disk: depth for disk, depth in found.items() if depth is not None}


def queue_gain(view: DiskView, depth: float) -> float:
    """How many times faster the drive serves the disk's random IO at *depth* requests in flight than
    one at a time: the simulator's SPTF with the positioning margin that reproduces real drives'
    queued rates (:mod:`advisor.disk.simulate`; reference disk.md, NCQ/RPO: about 1.8-1.9 x at QD 16
    on a 1 % band) on random reads of the areas' mean size over the span of their bands."""
    queued = min(round(depth), NCQ_DEPTH)
    busy = [(c, band) for c, band in zip(view.areas, view.bands, strict=True) if c.area.iops > 0]
    if queued < 2 or not busy or not isinstance(view.physics, ModelPhysics):
        return 1.0
    # the band to a thousandth of the disk outwards and the size to 4 KiB: the gain moves well under
    # the simulation's own 2 % there, and a fleet's intervals of one layout then share one simulation
    band = (math.floor(min(b[0] for _, b in busy) * 1000) / 1000, math.ceil(max(b[1] for _, b in busy) * 1000) / 1000)
    total = sum(c.area.iops for c, _ in busy)
    block = int(sum(c.area.iops * c.area.mean_io_bytes for c, _ in busy) / total) // BLOCK_GRAIN * BLOCK_GRAIN
    block = max(block, BLOCK_GRAIN)
    one = _simulated_iops(view.physics.model, band, block, 1)
    return max(_simulated_iops(view.physics.model, band, block, queued) / one, 1.0) if one > 0 else 1.0


BLOCK_GRAIN = 4096
"""The IO size :func:`queue_gain` simulates is rounded down to this."""


@functools.lru_cache(maxsize=512)
def _simulated_iops(model: DiskModel, band: tuple[float, float], block_bytes: int, depth: int) -> float:
    """Random reads of *block_bytes* over *band* at *depth* in flight, simulated (about 0.04 s;
    remembered: summaries of many intervals of one layout ask the same)."""
    return simulate(model, [StreamSpec("randread", band, block_bytes, qd=depth)], ios=QUEUE_SIMULATED_IOS, seed=1).iops


def busy_at_depth(view: DiskView, depth: float | None) -> float:
    """:func:`modelled_busy` with the random areas' time divided by the drive's :func:`queue_gain` at *depth*."""
    if depth is None:
        return modelled_busy(view)
    gain = queue_gain(view, depth)
    return sum(c.area.iops * ms / (1.0 if c.sequential else gain)
               for c, ms in zip(view.areas, view.times_ms, strict=True)) / 1000.0


def disk_utils(diskstats: Sequence[DiskStatRate]) -> dict[str, float]:
    """The kernel's busy share per whole disk (partitions share their disk's actuator)."""
    return {d.name: d.util for d in diskstats if not d.is_partition}


def disk_time_misfits(views: Mapping[str, DiskView], utils: Mapping[str, float],
                      depths: Mapping[str, float] | None = None) -> list[Misfit]:
    """MODEL_DOES_NOT_FIT where the model charges more than DISK_TIME_SLACK x the time the kernel saw the disk busy.

    Only where the kernel measured the disk: without its busy time, a model charging more
    than the interval may be right about a disk with a deep queue (DISK_SATURATED says so).
    Where the kernel's figures give the mean requests in flight (*depths*), the model's disk
    time is the one at that depth (:func:`busy_at_depth`): like with like.
    """
    found = []
    for disk, view in sorted(views.items()):
        util = utils.get(disk)
        if util is None:
            continue
        depth = (depths or {}).get(disk)
        busy, allowed = modelled_busy(view), DISK_TIME_SLACK * max(util, MIN_UTIL)
        if busy >= MIN_JUDGED_BUSY and busy > allowed:
            busy = busy_at_depth(view, depth)  # simulated only where one at a time would refute
            if busy > allowed:
                found.append(Misfit(disk, DISK_TIME, busy * 100, allowed * 100, "% of the interval",
                                    tuple(c.area.name for c in view.areas if c.area.iops > 0),
                                    queue_depth=None if depth is None else round(depth, 1)))
    return found


def overruled_by_replay(misfits: Sequence[Misfit], replayed: frozenset[str]) -> tuple[list[Misfit], list[Misfit]]:
    """(refutations that stand, disk-time refutations of disks whose replay fits).

    The disk-time check charges one IO at a time; where a replay that models the queue fits
    the measured times, it is the better evidence and decides for that disk."""
    stand: list[Misfit] = []
    overruled: list[Misfit] = []
    for found in misfits:
        (overruled if found.measure == DISK_TIME and found.disk in replayed else stand).append(found)
    return stand, overruled


def saturated_disks(views: Mapping[str, DiskView], utils: Mapping[str, float],
                    overcharged: frozenset[str] = frozenset(),
                    traced: Mapping[str, float] | None = None) -> dict[str, tuple[float | None, float]]:
    """disk -> (kernel busy share or None, modelled busy) for every saturated disk: busy :data:`BUSY_MIN` of
    the interval by the kernel or of a trace's span (*traced*, :func:`advisor.engine.replay_today.busy_share`),
    or modelled busy for the whole interval; on an *overcharged* disk (its disk-time refutation overruled by
    the replay) the measured busy shares alone say."""
    out = {}
    for disk, view in sorted(views.items()):
        busy, util, in_trace = modelled_busy(view), utils.get(disk), (traced or {}).get(disk)
        if (util is not None and util >= BUSY_MIN) or (in_trace is not None and in_trace >= BUSY_MIN) \
                or (busy >= 1.0 and disk not in overcharged):
            out[disk] = (util, busy)
    return out


def saturation(views: Mapping[str, DiskView], utils: Mapping[str, float], plan: Plan | None,
               overcharged: frozenset[str] = frozenset(), traced: Mapping[str, float] | None = None,
               replayed: frozenset[str] = frozenset(), io_wait_share: float | None = None) -> Saturation | None:
    """What the plan gives on the saturated disks: more work at the same concurrency, and where it goes.

    The work gain is the aggregate model's, over the saturated disks no replay judges: on a disk whose
    trace replays within its tolerance (*replayed*) the aggregate model is not the evidence, and the
    replay keeps each area's traced requests: how much more work each database's sessions send is its
    rates' (:mod:`advisor.engine.replay_loops`), not a figure here. Those disks are named
    (``replay_judges``), without a figure.

    The disk's gain holds while the disk stays the bottleneck; the database's time that is not IO
    wait (*io_wait_share*, the gate's) stays whatever the layout, so work per second rises at most
    1 / (1 - share) times. A tier plan onto flash cut one traced disk's time per unit of work 128
    times, and "12763 % more work per second" was printed where the 8 % of DB time that was not IO
    allows 1150 % at the most: the gain is capped at that bound, which is shown."""
    found = saturated_disks(views, utils, overcharged, traced)
    if not found:
        return None
    names = {c.area.name for disk in found if disk not in replayed for c in views[disk].areas}
    times = [t for t in plan.service_times if t.area in names and t.iops > 0] if plan is not None else []
    before = sum(t.iops * t.before_ms for t in times)
    after = sum(t.iops * t.after_ms for t in times)
    gain = before / after - 1.0 if after > 0 and before > 0 else None
    taker = None
    if gain is not None and gain > 0:
        grown = {t.area: t.iops * t.after_ms / after - t.iops * t.before_ms / before for t in times}
        taker = max(sorted(grown), key=lambda a: grown[a])
    bound = 1.0 / (1.0 - io_wait_share) - 1.0 if io_wait_share is not None and io_wait_share < 1.0 else None
    if gain is not None and bound is not None:
        gain = min(gain, bound)
    utils_known = [u for u, _ in found.values() if u is not None]
    in_traces = [(traced or {})[d] for d in found if d in (traced or {})]
    return Saturation(
        disks=tuple(found), util=round(max(utils_known), 4) if utils_known else None,
        modelled_busy_s_per_s=round(max(b for _, b in found.values()), 4),
        traced_busy=round(max(in_traces), 4) if in_traces else None,
        work_gain=None if gain is None else round(gain, 4), freed_time_to=taker,
        replay_judges=tuple(d for d in found if d in replayed),
        work_gain_bound=None if bound is None else round(bound, 4),
    )


def replayed_work(sat: Saturation, replayed: Sequence[ReplayCheck]) -> str:
    """What the replay of each disk it judges predicts a saturated disk's databases get: their sessions' planned
    rate against today's replayed one (more work per second at the same concurrency), at most the
    bound the database's time that is not IO wait allows; or that it is no prediction, the replay's note
    saying why (:mod:`advisor.engine.replay_loops`), and on a disk several databases share, which of them the
    replay's phases all give the freed time (``rate_direction``)."""
    predicted, unknown, directed = [], [], []
    for check in replayed:
        rated = [w for w in check.issuers if w.kind == "database" and w.replayed_rate and w.planned_rate]
        if check.disk not in sat.replay_judges or not rated:
            continue
        if not all(w.rate_predicted for w in rated):
            unknown.append(check.disk)
            takers = [w.issuer for w in rated if w.rate_direction == "more"]
            losers = [w.issuer for w in rated if w.rate_direction == "less"]
            if takers:
                directed.append(f"on {check.disk} to {' and '.join(takers)}"
                                + (f" (from {' and '.join(losers)})" if losers else ""))
            continue
        for who in rated:
            gain = (who.planned_rate or 0.0) / (who.replayed_rate or 1.0) - 1.0
            bound = sat.work_gain_bound
            capped = bound is not None and gain > bound
            predicted.append(f"on {check.disk} {who.issuer}'s sessions {'at most ' if capped else ''}"
                             f"{min(gain, bound) if bound is not None else gain:.0%} more work per second "
                             f"({who.replayed_rate:.1f} -> {who.planned_rate:.1f} requests per session-second, "
                             "replayed today and under the plan)")
    said = f" The replay predicts {'; '.join(predicted)}." if predicted else ""
    if unknown:
        said += (f" On {', '.join(unknown)} how much more work each database's sessions do is no prediction (the "
                 "replay's note says why)")
        said += (f"; the time the plan frees goes {'; '.join(directed)}, as a direction only." if directed else ".")
    return said


def saturation_finding(sat: Saturation, replayed: Sequence[ReplayCheck] = ()) -> Finding:
    """DISK_SATURATED: the disk has a queue; a plan's gain is work per second, not time per IO; on a disk a
    replay judges, what its rates predict (:func:`replayed_work`)."""
    disks = ", ".join(sat.disks)
    busy = f"busy {sat.util:.0%} of the interval" if sat.util is not None else "no kernel busy time"
    if sat.traced_busy is not None:
        busy += f", {sat.traced_busy:.0%} of the traced span"
    capped = sat.work_gain is not None and sat.work_gain_bound is not None and sat.work_gain >= sat.work_gain_bound
    gain = ("" if sat.work_gain is None else
            f" At the same concurrency the plan predicts {'at most ' if capped else ''}{sat.work_gain:.0%} more work "
            "per second" + (" (the database's time that is not IO wait stays whatever the layout: it bounds the "
                            "gain, and the disk would no longer be what limits the work)" if capped else "")
            + (f"; most of the freed disk time goes to {sat.freed_time_to}." if sat.freed_time_to else "."))
    if sat.replay_judges:
        gain += (f" The replay of its trace judges {', '.join(sat.replay_judges)}, where the trace shows a queue by "
                 "the drive's busy time for the traced work (less of it is more work at the same concurrency); it "
                 "keeps every area's traced "
                 "requests, and each database's sessions as closed loops: its table of the databases' rates "
                 "gives their work per session-second today and under the plan." + replayed_work(sat, replayed))
    return Finding(
        code="DISK_SATURATED", severity="medium", subject=disks,
        title=f"{disks}: saturated ({busy}; the model charges {sat.modelled_busy_s_per_s:.2f} s of disk time per s)",
        evidence={"disks": disks, "util": sat.util, "traced_busy": sat.traced_busy,
                  "modelled_busy_s_per_s": sat.modelled_busy_s_per_s,
                  "work_gain": sat.work_gain, "freed_time_to": sat.freed_time_to,
                  "work_gain_bound": sat.work_gain_bound},
        predicted_gain=sat.work_gain,
        action=("Requests queue on the disk, so a faster layout shortens each wait less than the service times "
                "suggest: the clients issue more work instead." + gain + " Measure work done per second "
                "(transactions, scans) before and after, not the time per IO."),
    )
