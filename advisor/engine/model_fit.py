"""Does the assumed disk model fit what was measured? If not, no finding may rest on it.

Every zone finding and plan rests on a model of the disk (a preset, a spec or a fitted
bench profile). When the database measured more than that model allows, the model is
refuted, not the disk: 1,948 WAL syncs a second on a disk assumed to turn at 7,200 rpm
(120 a second at most, one per revolution) means a write cache, an array, flash or a
virtual disk answers, and "commits wait for the platter" would be false advice. Three
measurements can refute a model of a disk:

* **commits**: WAL/redo syncs above :data:`COMMIT_SLACK` x the honest commit rate
  (about RPM/60: the same sector comes round once per revolution);
* **random IOPS**: random IOs per second above :data:`QUEUE_GAIN` x the best the model
  allows one request at a time (4 KiB reads confined to the outermost 1 % of the disk:
  almost no seek, half a turn of rotational wait; 171/s for a 7,200 rpm class). A deep
  queue with shortest-positioning-time-first scheduling does better, measured up to about
  2 x on random reads, so only more than three times that counts. The bound does not depend
  on where the areas lie, so moving them cannot make a refuted model fit;
* **throughput**: bytes per second above :data:`RATE_SLACK` x the fastest zone's
  sequential rate, which no queue can beat.

A model fitted to a bench profile is refuted before any of these when it misses the
profile's own figures (**bench fit**: an RMS relative error above :data:`FIT_TOLERANCE`):
the fitter finds the closest drive, and on a cached scratch file or flash the closest drive
is no description (a noisy curve of a CI host's scratch file was fitted at 55 % RMS error, a
15,000 rpm "drive" whose random IOPS were 96 % under the measured ones).

Busy time and throughput count the reads the disk saw: with the kernel's diskstats the
page cache's share is already taken out (:mod:`advisor.engine.calibrate`); without them
(an imported report) a read a cache served also counts, so the finding says that a cache
may be what answered. Commits cannot be served by the page cache.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from advisor.disk.physics import DiskPhysics
from advisor.engine.classify import Classified
from advisor.model import Finding
from advisor.units import DISK_MB, MIB

COMMIT_SLACK = 1.2
"""Syncs above 1.2 x the honest commit rate cannot have waited for the platter."""

QUEUE_GAIN = 3.0
"""How many times its best one-at-a-time random rate a disk may reach with a deep queue."""

BEST_BAND = (0.0, 0.01)
"""The band of the best case: the outermost 1 % of the disk."""

SMALL_IO_BYTES = 4096

RATE_SLACK = 1.2
"""Throughput above 1.2 x the fastest zone's rate cannot come from the modelled platters."""

FIT_TOLERANCE = 0.25
"""Largest RMS relative error of a model fitted to a bench profile over the figures it was
fitted to (zone rates, band, full-stroke and cross-surface IOPS) for the model to describe the
disk: real drives' profiles fit within about 5 % (docs/bench.md: 4.8 %; a simulated drive: 0.2 %)."""


@dataclass(frozen=True)
class Misfit:
    """One measurement the model of one disk cannot produce."""

    disk: str | None  # None: the default model, for areas on no located disk
    measure: str  # "bench fit", "commits", "random IOPS", "throughput" or "disk time"
    measured: float
    allowed: float
    unit: str
    areas: tuple[str, ...]
    queue_depth: float | None = None  # disk time: the mean requests in flight it was modelled at (None: one at a time)

    @property
    def ratio(self) -> float:
        """How many times what the model allows was measured."""
        return self.measured / self.allowed if self.allowed > 0 else float("inf")


def _commit_misfit(disk: str | None, members: Sequence[Classified], physics: DiskPhysics) -> Misfit | None:
    if physics.rpm is None:
        return None
    logs = [c for c in members if c.cls == "wal" and c.area.syncs_per_s > 0]
    if not logs:
        return None
    # the busiest log, not a sum: multiplexed members are written by the same commits
    syncs = max(c.area.syncs_per_s for c in logs)
    honest = physics.commit_rate_per_s("off")
    if honest <= 0 or syncs <= COMMIT_SLACK * honest:
        return None
    return Misfit(disk, "commits", syncs, honest, "syncs/s", tuple(c.area.name for c in logs))


def _iops_misfit(disk: str, members: Sequence[Classified], physics: DiskPhysics) -> Misfit | None:
    random = [c for c in members if not c.sequential and c.area.iops > 0]
    best_ms = physics.mean_service_ms(BEST_BAND, SMALL_IO_BYTES, True)
    if physics.rpm is None or not random or best_ms <= 0:
        return None
    measured = sum(c.area.iops for c in random)
    allowed = QUEUE_GAIN * 1000.0 / best_ms
    if measured <= allowed:
        return None
    return Misfit(disk, "random IOPS", measured, allowed, "IO/s", tuple(c.area.name for c in random))


def _rate_misfit(disk: str, members: Sequence[Classified], physics: DiskPhysics) -> Misfit | None:
    curve = physics.zone_curve(17)
    if physics.rpm is None or not curve:
        return None
    fastest = max(rate for _, rate in curve) * DISK_MB
    measured = sum(c.area.mb_s for c in members) * MIB
    if fastest <= 0 or measured <= RATE_SLACK * fastest:
        return None
    return Misfit(disk, "throughput", measured / DISK_MB, fastest / DISK_MB, "MB/s",
                  tuple(c.area.name for c in members))


def fit_misfits(classified: Sequence[Classified], fit_errors: Mapping[str, float]) -> list[Misfit]:
    """A misfit per disk whose model was fitted to a bench profile it misses by more than
    :data:`FIT_TOLERANCE` (*fit_errors*: disk -> RMS relative error of the fit)."""
    found = []
    for disk, error in sorted(fit_errors.items()):
        if error > FIT_TOLERANCE:
            areas = tuple(c.area.name for c in classified if c.area.disk == disk)
            found.append(Misfit(disk, "bench fit", error * 100.0, FIT_TOLERANCE * 100.0, "% RMS error", areas))
    return found


def model_misfits(classified: Sequence[Classified], physics_of: Mapping[str | None, DiskPhysics]) -> list[Misfit]:
    """Every measurement that refutes the model assumed for a disk.

    *physics_of* maps each disk (None: areas on no located disk) to the model assumed for it.
    """
    by_disk: dict[str | None, list[Classified]] = {}
    for c in classified:
        by_disk.setdefault(c.area.disk if c.area.placement_known else None, []).append(c)
    found: list[Misfit] = []
    for disk, members in sorted(by_disk.items(), key=lambda item: item[0] or ""):
        physics = physics_of.get(disk)
        if physics is None:
            continue
        commits = _commit_misfit(disk, members, physics)
        if commits is not None:
            found.append(commits)
        if disk is None:
            continue  # unlocated files may lie on several devices: only their commits say something
        for check in (_iops_misfit, _rate_misfit):
            misfit = check(disk, members, physics)
            if misfit is not None:
                found.append(misfit)
    return found


_WHAT_ANSWERED = {
    "commits": "a write cache (battery-backed or lying), an array, flash or a virtual disk acknowledges the syncs",
    "random IOPS": "a cache, an array of several disks, flash or a virtual disk served these IOs",
    "throughput": "a cache, an array of several disks, flash or a virtual disk delivered these bytes",
    "bench fit": ("no drive of zones, seeks and one revolution gives the figures advisor bench measured on "
                  "it (a cache, flash, an array or a virtual disk answered, or the bench's runs were too noisy: "
                  "its warnings say which)"),
    "disk time": ("the disk served these IOs in less time than the model charges them one at a time (a deep "
                  "queue the drive reorders, a cache, or IO sizes and patterns the workload does not show)"),
}


def misfit_finding(misfit: Misfit, model: str) -> Finding:
    """MODEL_DOES_NOT_FIT: what was measured, what the model allows, what was withheld."""
    where = misfit.disk or "the unlocated files' disk"
    title = (f"{where}: the model {model} fitted to the bench profile misses its figures by {misfit.measured:.0f} % "
             f"(RMS relative error; a drive's profile fits within {misfit.allowed:.0f} %)"
             if misfit.measure == "bench fit" else
             f"{where}: {misfit.measure} {misfit.measured:,.0f} {misfit.unit} measured, "
             f"{misfit.ratio:.1f}x what the assumed model {model} allows ({misfit.allowed:,.1f} {misfit.unit})"
             + ("" if misfit.queue_depth is None else f", at {misfit.queue_depth:.1f} requests in flight"))
    return Finding(
        code="MODEL_DOES_NOT_FIT", severity="medium", subject=misfit.disk or "(default model)",
        title=title,
        evidence={
            "disk": misfit.disk, "model": model, "measure": misfit.measure,
            "measured": round(misfit.measured, 3), "allowed": round(misfit.allowed, 3),
            "ratio": round(misfit.ratio, 3), "unit": misfit.unit, "areas": ", ".join(misfit.areas[:8]),
        } | ({} if misfit.queue_depth is None else {"queue_depth": misfit.queue_depth}),
        predicted_gain=None,
        action=(f"The model does not describe this device: {_WHAT_ANSWERED[misfit.measure]}. Findings and "
                "plans that rest on the model (zones, seeks, commits per revolution) are withheld for it. "
                "Bench the device (advisor bench, a scratch file on it where the device cannot be opened) "
                "and report with --disk, or name the right model with --preset/--spec."),
    )
