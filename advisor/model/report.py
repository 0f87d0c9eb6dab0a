"""What the advisor concludes: findings, a placement plan with predicted gains, scripts.

A finding is pgwatch's recommendation row made physical: a stable code, the evidence as
numbers, the gain the disk model predicts, and the action to take. A plan lists target
partitions from the outer edge, which area goes where, the service times the model
predicts before and after, and the scripts that carry it out.
"""

from __future__ import annotations

from typing import Literal

from advisor.model.coverage import CoverageCheck
from advisor.model.kinds import Share, Timestamp
from advisor.model.record import Record, field

REPORT_FORMAT_VERSION = 4
"""2: typed server, disks, layout and areas; an area's ``class`` is now ``area_class``.
3: an area's ``size_bytes`` is ``null`` when unknown, ``size_assumed`` marks ``--assume-size``'s.
4: the outcome is typed: ``no_plan`` (a code and its words), ``model_basis`` (the model note is no
longer the first warning) and ``outcome``. Versions 1-3 are still read
(:func:`advisor.model.report_upgrade.upgrade_report`)."""

Severity = Literal["info", "low", "medium", "high", "critical"]

NoPlanCode = Literal["not-io-bound", "sizes-unknown", "not-worth-it", "model-does-not-fit", "solid-state",
                     "no-files", "nothing-located", "unknown"]
"""Why a report has no plan to carry out (``unknown``: an old document whose words match no code)."""

Verdict = Literal["saves", "nothing to gain", "no change worth making", "sizes unknown", "no plan"]
"""What a report amounts to, in the order the fleet ranks it (:func:`advisor.engine.worth.outcome`)."""

OutcomeSource = Literal["aggregate", "replay"]
"""Whose figures an outcome states: the aggregate model's, or the replay's of a traced workload."""


class Finding(Record):
    """One thing advisor found, with the numbers that prove it and what to do."""

    code: str  # stable: HOT_ON_INNER, CROSS_SURFACE, ...
    severity: Severity
    subject: str  # tablespace, file, disk or area the finding is about
    title: str
    evidence: dict[str, float | int | str | None]
    predicted_gain: float | None  # fraction of service time saved (0.25 = 25 % faster)
    action: str


class ServiceTime(Record):
    """Predicted mean service time of one area before and after the plan."""

    area: str
    iops: float
    before_ms: float
    after_ms: float


class PlannedPartition(Record):
    """A target partition, in order from the outer edge."""

    disk: str
    number: int
    start_fraction: Share
    end_fraction: Share
    size_bytes: int
    areas: tuple[str, ...]
    label: str = ""
    start_bytes: int = 0  # 1 MiB aligned


class AreaPlacement(Record):
    """Where one area (tablespace, WAL, temp, archive) is and where it should go."""

    area: str
    kind: str
    size_bytes: int
    current: str | None  # partition or zone description now
    target: str  # planned partition label
    zone_start: Share
    zone_end: Share


class Script(Record):
    """A script that carries out part of the plan, with the caveat to read first."""

    name: str  # "sfdisk", "postgres.sql", "oracle.sql", "move_wal.sh"
    language: Literal["sql", "shell", "sfdisk"]
    text: str
    caveat: str = ""


class TierDevice(Record):
    """One target device of a tiered plan: its medium, model, what it holds and its predicted time."""

    name: str
    medium: str
    model: str
    source: str  # where the model's numbers come from
    capacity_bytes: int
    used_bytes: int  # with growth headroom
    iops: float
    mean_ms: float
    areas: tuple[str, ...]


class TierAssignment(Record):
    """Where one area goes in a tiered plan, where the knapsack baseline put it, and why."""

    area: str
    kind: str  # the area's class (random-read, wal, archive ...)
    device: str
    medium: str
    size_bytes: int
    slot_bytes: int  # with growth headroom, as placed
    iops: float
    after_ms: float
    baseline_device: str
    reason: str = ""


class TierCurvePoint(Record):
    """Predicted mean service time with the fast tier cut to ``fast_bytes`` (None: nothing fits)."""

    fast_bytes: int
    mean_ms: float | None


class TierPlan(Record):
    """The tier side of a plan: devices, assignment, rules, baseline and marginal curve."""

    devices: tuple[TierDevice, ...]
    assignments: tuple[TierAssignment, ...]
    mean_ms: float
    baseline_mean_ms: float  # the IO-density knapsack under the same model
    curve: tuple[TierCurvePoint, ...] = ()
    rules: tuple[str, ...] = ()


class MigrationStage(Record):
    """One step of a staged migration on the disk that holds the data (``--in-place``).

    ``needs_bytes`` is the free space the step needs in ``needs_where``; ``offline`` says
    what cannot be used meanwhile and ``offline_s`` estimates for how long (the bytes it
    copies at the disk's slowest sequential rate; None when nothing is copied or no rate is
    known); ``check`` is what the step's first script verifies before it changes anything.
    """

    number: int  # 1, 2, 3 in the order they run
    title: str  # what the step does
    scripts: tuple[str, ...]  # the plan's scripts the step runs, in order
    needs_bytes: int  # free space the step needs
    needs_where: str  # where that space must be (the spare, the planned partitions)
    offline: str  # what cannot be used while the step runs
    offline_s: float | None  # estimated seconds of it; null when nothing is copied or no rate is known
    check: str  # what the step's first script verifies before it changes anything


class Plan(Record):
    """Partitions from the outer edge, the assignment, predicted times and scripts."""

    partitions: tuple[PlannedPartition, ...]
    placements: tuple[AreaPlacement, ...]
    service_times: tuple[ServiceTime, ...]
    predicted_before_ms: float
    predicted_after_ms: float
    predicted_gain: float
    scripts: tuple[Script, ...] = ()
    method: str = ""  # "exhaustive" | "greedy+local" ...
    notes: tuple[str, ...] = ()
    tiers: TierPlan | None = None  # set by a plan onto an inventory (--target)
    not_worth_it: str | None = None  # why carrying it out is not worth it (its scripts are not written)
    stages: tuple[MigrationStage, ...] = ()  # --in-place: the steps from today's partitions to the planned ones


class ServerSummary(Record):
    """Which server the report is about."""

    dbms: str  # postgres | oracle
    version: str  # server version text
    host: str  # server address as the server reports it
    name: str  # host:port (PostgreSQL) or database name (Oracle)


class DiskSummary(Record):
    """The disk model the advice used for one disk (``target``: the new disks of a plan)."""

    model: str  # preset, spec or fitted model name
    rpm: int | None  # None for solid state
    capacity_bytes: int
    solid_state: bool
    zone_curve: tuple[tuple[float, float], ...]  # (LBA fraction, MB/s of 10^6 bytes as datasheets) outer to inner
    mean_ms_now: float | None  # IO-weighted mean service time of the layout now; None when not located
    size_bytes: int


class LayoutPartition(Record):
    """A partition as it is now, as fractions of its disk (0 = outer edge)."""

    name: str
    start_fraction: Share
    end_fraction: Share
    mountpoints: tuple[str, ...]
    fstype: str | None


class LayoutDisk(Record):
    """A disk of the host now: its size and partitions."""

    size_bytes: int
    partitions: tuple[LayoutPartition, ...]


class LayoutSummary(Record):
    """The host's partitions as they are now (empty when the workload has no host layout)."""

    hostname: str = ""
    disks: dict[str, LayoutDisk] = field(default_factory=dict)


class AreaRow(Record):
    """One area (tablespace, WAL/redo, temp, archive, ...) as the engine classified and located it."""

    name: str
    kind: str  # tablespace | wal | temp | archive | control | undo
    area_class: str  # random-read, scan, log-write, ... (advisor.engine.classify)
    reason: str  # why that class
    io_share: float  # share of all IOs of the workload
    iops: float
    read_iops: float
    write_iops: float
    mb_s: float
    read_mb_s: float
    size_bytes: int | None  # None when a file of the area has no stated size (an imported report)
    files: int
    disk: str | None
    partition: str | None
    zone_start: Share | None  # fractions of the disk; None when not located
    zone_end: Share | None
    zone_mean: Share | None
    placement_known: bool
    db_read_iops: float | None = None  # the database's own read rate before calibration
    db_read_mb_s: float | None = None
    disk_read_share: float | None = None  # share of the database's reads the kernel saw reach the disk
    size_assumed: bool = False  # the size is --assume-size's, not a stated one (every output marks it)
    whole_tablespace: bool = False  # tablespace-level figures of a report: moved whole (every output marks it)


GainBase = Literal["replayed", "measured"]


class ReplayArea(Record):
    """One area's requests in a trace replay: measured, replayed today, replayed as planned (ms)."""

    area: str  # the area's name, as in the areas table
    requests: int  # its reads and writes in the trace
    measured_ms: float  # issue-to-completion time the trace measured per read or write, its flushes' included
    replayed_ms: float  # the same replayed under today's layout (mean over the phases)
    planned_ms: float | None = None  # replayed under the planned layout (same phases); null without a plan on this disk
    flushes: int = 0  # cache flushes that followed its writes (their time is in the three figures above)
    deviation: float | None = None  # replayed_ms / measured_ms - 1: the self-check of this area alone
    fits: bool | None = None  # |deviation| <= the check's tolerance; null without a measured time
    # standard deviation of its gain (1 - planned / today) over the rotational phases replayed, and whether it
    # is under advisor.engine.replay_phase.AREA_PHASE_SPREAD (False: the planned time is no prediction);
    # null without a plan or with fewer than 3 phases
    phase_spread: float | None = None
    steady: bool | None = None
    # on a saturated disk (null where not counted: not saturated, no database committing, processes not named)
    # whether its sessions' requests wait on other databases' commits, which a faster layout makes more often
    # and the replay keeps as traced (advisor.engine.replay_barriers)
    behind_commits: float | None = None  # share of its measured time behind flushes following others' writes
    barrier_free: bool | None = None  # under FLUSH_WAIT_NOTED; False: planned time no prediction; null: no plan
    # its time saved under the plan, and which today it starts from: the replayed time where the area's self-check
    # fits (the model's own bias cancels), the measured one where it does not (engine.replay_area_gain.area_saved)
    predicted_gain: float | None = None  # 1 - planned_ms / today's time (gain_from); null without a plan
    gain_from: GainBase | None = None  # "replayed" where the area's self-check fits, else "measured"; null: no plan


IssuerKind = Literal["database", "server process", "not named"]
RateDirection = Literal["more", "less"]
ReplayBasis = Literal["requests", "busy time"]


class ReplayIssuer(Record):
    """Whose requests they were, in a trace replay: one database's sessions, one server process serving none
    (the checkpointer, the WAL writer), or the processes the server did not name (the kernel's flushers
    and file system journal). Needs the trace's processes named (``TraceProcess.database``/``role``)."""

    issuer: str  # the database's name, the server process's role, or "not named" (kernel threads, not seen)
    kind: IssuerKind
    processes: int  # distinct pids that issued its requests in the trace
    requests: int  # its reads and writes in the trace
    measured_ms: float  # issue-to-completion time the trace measured per read or write, its flushes' included
    replayed_ms: float  # the same replayed under today's layout (mean over the phases)
    planned_ms: float | None = None  # replayed under the planned layout (same phases); null without a plan
    flushes: int = 0  # cache flushes that followed its writes (their time is in the three figures above)
    deviation: float | None = None  # replayed_ms / measured_ms - 1: the self-check of its requests alone
    # share of its reads and writes issued while a cache flush was in the drive, and their wait behind it per
    # read or write (ms, measured): a flush is a barrier (advisor.engine.replay_barriers); null where not measured
    behind_flush: float | None = None
    flush_wait_ms: float | None = None
    behind_commits: float | None = None  # as ReplayArea's, for a database's requests
    barrier_free: bool | None = None  # as ReplayArea's
    # a database's reads and writes per second of its sessions' activity (each session's first issue to last
    # completion; with several databases on the disk, only while every one has a session at work): measured,
    # replayed today, replayed under the plan (mean over the phases); a saturated disk's gain is more work per
    # second; null for other issuers or no plan
    measured_rate: float | None = None
    replayed_rate: float | None = None
    planned_rate: float | None = None
    # share of its sessions' time spent waiting for requests on a clock of their own, the journal's or the page
    # writeback's (as traced; replayed under the plan), and whether the disk's planned rates are a prediction
    # (false when a database's sessions wait so 15 % or more either way, when a replayed rate today is more than
    # 15 % off the measured one, or when several databases share the disk: advisor.engine.replay_loops); null
    # for other issuers or no plan
    waits_on_others: float | None = None
    planned_waits_on_others: float | None = None  # the same share replayed under the plan (mean over the phases)
    rate_predicted: bool | None = None
    # the least and the most its sessions' planned rate changes against today's over the rotational phases replayed
    # (each phase's planned rate against the same phase's today); null for other issuers or no plan
    rate_change_low: float | None = None  # planned rate / today's - 1, the least over the phases
    rate_change_high: float | None = None  # the same, the most over the phases
    # on a disk several databases share, whose planned rates are no prediction as figures: the direction every phase
    # gives its sessions' work per second beyond the loops' tolerance ("more": it takes time the plan frees; "less":
    # it loses time to the others), where the loops' self-check holds and they close; null: no direction
    # (advisor.engine.replay_loops)
    rate_direction: RateDirection | None = None  # a shared disk's direction only: "more" takes freed time, "less" loses


class ReplayCheck(Record):
    """A disk's traced requests replayed on its model (``collect --trace``; docs/report.md).

    The self-check compares the replay under today's layout with the service times the
    same trace measured; ``fits`` is False beyond ``tolerance`` (MODEL_DOES_NOT_FIT). The
    planned replay moves each area's extents to its planned zone; ``predicted_gain`` is
    1 - planned / today of the replayed mean service time, shown beside the aggregate
    model's ``aggregate_gain``. ``refused`` says in a line why a trace was not replayed.

    The platter's rotational phase at the trace's start is unknown: each layout is replayed
    under ``phases`` phases spread over a revolution, the same ones today and planned; the
    replayed figures are the means over them, and ``deviation_low``/``deviation_high`` and
    ``gain_low``/``gain_high`` the lowest and highest of a single phase (docs/report.md).

    A disk the trace shows with a queue (``mean_in_flight`` 2 or more, whatever its ``traced_busy``)
    is judged by the drive's busy time in the same replays (``basis`` "busy time"): today's
    (``replayed_busy_s``) against the time the trace had the disk busy (``measured_busy_s``;
    ``busy_deviation``, which then decides ``fits``), and the planned one (``planned_busy_s``)
    gives ``predicted_gain``: a queued disk turns a faster layout into more work at the same
    concurrency, not into shorter waits. The per-request figures stay beside it (``deviation``,
    ``request_gain``).

    ``gain_error`` is the standard uncertainty of ``predicted_gain``
    (:mod:`advisor.engine.replay_noise`): its standard error over ``gain_windows`` windows of the
    trace (``window_error``: how far it could move had another stretch of the same workload been
    traced) combined with the file system's part (``spread_gain``: the gain were each moved area
    as spread as it is today rather than laid end to end) and the replay's own error
    (``model_error``: what its gain missed the measured one by on the accuracy suite, which no
    self-check shows). A plan is advised when its gain less that uncertainty reaches ``--min-gain``.
    """

    disk: str  # the traced disk
    requests: int = 0  # requests replayed (the sound part of the trace)
    queue_depth: int = 0  # most requests in flight at once in the trace: the drive's reordering window
    measured_ms: float | None = None  # mean issue-to-completion time the trace measured (reads, writes, flushes)
    replayed_ms: float | None = None  # the same, replayed on the model under today's layout (mean over the phases)
    deviation: float | None = None  # replayed / measured - 1
    tolerance: float = 0.0  # largest |deviation| for which the model fits
    fits: bool | None = None  # the self-check: |deviation| <= tolerance (on basis "busy time": |busy_deviation|)
    planned_ms: float | None = None  # replayed under the planned layout (mean over the same phases)
    predicted_gain: float | None = None  # 1 - planned_ms / replayed_ms; on "busy time", of the busy times
    aggregate_gain: float | None = None  # the plan's aggregate-model gain, for comparison
    aggregate_refuted: bool = False  # the aggregate model refuted by its disk time here; this replay judges instead
    measured_span_s: float | None = None  # first issue to last completion: the time the traced work took
    replayed_span_s: float | None = None
    planned_span_s: float | None = None
    areas: tuple[ReplayArea, ...] = ()  # per area, the requests mapped to its files
    traced_busy: float | None = None  # share of measured_span_s with a request in flight (the disk's busy share)
    notes: tuple[str, ...] = ()  # what of the trace was unsound and how the replay dealt with it
    refused: str | None = None  # why the trace was not replayed, in one line
    phases: int | None = None  # rotational phases replayed per layout; null: refused, or an older document (one phase)
    deviation_low: float | None = None  # the lowest deviation of a single phase; null: one phase
    deviation_high: float | None = None  # the highest per-phase deviation
    gain_low: float | None = None  # the lowest gain of a single phase; null: one phase, or no plan
    gain_high: float | None = None  # the highest per-phase gain
    overlapped: int | None = None  # requests that went out before their process's previous one completed in
    # today's replay (the mean over the phases) where the trace had that one complete first; null: not counted
    issuers: tuple[ReplayIssuer, ...] = ()  # per database or server process, where the trace names its pids
    starved_measured: float | None = None  # share of the timed requests that waited 200 ms or more, as traced
    starved_replayed: float | None = None  # the same in today's replay (the mean over the phases)
    deviation_unstarved: float | None = None  # replayed / measured - 1 of the mean of the requests that did not starve
    basis: ReplayBasis = "requests"  # what fits and predicted_gain rest on: the requests' times, or the busy time
    mean_in_flight: float | None = None  # the trace's mean requests in flight (their summed time over the span)
    measured_busy_s: float | None = None  # time the trace had a request in flight (basis "busy time")
    replayed_busy_s: float | None = None  # the same in today's replay (the mean over the phases)
    busy_deviation: float | None = None  # replayed_busy_s / measured_busy_s - 1: a queued disk's self-check
    planned_busy_s: float | None = None  # the replayed busy time under the planned layout (the same phases)
    request_gain: float | None = None  # 1 - planned_ms / replayed_ms, where predicted_gain is the busy time's
    gain_error: float | None = None  # predicted_gain's standard uncertainty: window_error, layout's, model_error
    window_error: float | None = None  # the standard error of predicted_gain over gain_windows windows of the trace
    gain_windows: int | None = None  # windows of equal length the trace was cut into for window_error
    spread_gain: float | None = None  # the gain were each moved area as spread as today (not laid end to end);
    # null under a tier plan, whose gain_error then leaves the layout's part out
    model_error: float | None = None  # the replay's own error, part of gain_error (null: not counted, or no plan)


class Saturation(Record):
    """Disks with a queue (busy 90 % or more by the kernel or over a trace's span, or modelled busy for the
    whole interval), and what a plan gives there.

    On a saturated disk a faster layout yields more work per second at the same concurrency
    (``work_gain``: disk time per unit of the same work before / after, less 1), not a shorter
    time per IO; ``freed_time_to`` is the area whose share of the disk time grows most.
    ``work_gain_bound`` is the most any layout can give at the same concurrency: the database's
    time that is not IO wait stays, so work per second rises at most 1 / (1 - IO share) times
    (Amdahl); ``work_gain`` never exceeds it.
    """

    disks: tuple[str, ...]
    util: Share | None  # the kernel's busy share (io_ticks), the highest of the disks; None without diskstats
    modelled_busy_s_per_s: float  # rates x modelled service times, the highest of the disks
    traced_busy: Share | None = None  # busy share over a trace's span (collect --trace), the highest; None untraced
    work_gain: float | None = None  # None without a plan, or where only replay-judged disks are saturated
    freed_time_to: str | None = None
    replay_judges: tuple[str, ...] = ()  # saturated disks a fitting replay judges: no aggregate work gain for them
    work_gain_bound: float | None = None  # the most the DB time not spent on IO allows (None: IO share unknown)


class NoPlan(Record):
    """Why there is no plan to carry out: a stable code to decide by, and the words a person reads."""

    code: NoPlanCode
    words: str  # the sentence every format shows ("No plan: ...")


class Outcome(Record):
    """What the advice amounts to, computed once by :func:`advisor.engine.worth.outcome`.

    The seconds are disk service time per hour of the interval: the plan's per-area IOPS x
    milliseconds; null without a plan (nothing was predicted, which is not a saving of 0). Where
    a replay judges the plan (``source`` "replay") they are the replay's, per hour of the traced
    span: its drive busy time on a disk with a queue, else its requests' times.
    """

    verdict: Verdict
    saved_s_per_h: float | None = None  # IOPS x (before - after) ms, per hour
    saved_share: float | None = None  # saved / before (0 when before is 0)
    before_s_per_h: float | None = None  # IOPS x before ms, per hour
    source: OutcomeSource = "aggregate"  # whose figures: the aggregate model's, or the replay's where it judges


class Report(Record):
    """The advisor's whole answer; renderers only read this."""

    generated_at: Timestamp  # when the report was made (UTC)
    server: ServerSummary  # which server the workload came from
    interval_s: float | None  # length of the workload's interval
    disks: dict[str, DiskSummary]  # disk name → model or profile summary used
    findings: tuple[Finding, ...]  # most important first (NOT_IO_BOUND leads when present)
    plan: Plan | None  # null with the reason in no_plan (not IO bound, solid state, nothing located, sizes unknown)
    io_wait_share: Share | None = None  # share of DB time spent waiting on IO
    layout: LayoutSummary = field(default_factory=LayoutSummary)  # partitions as they are now
    areas: tuple[AreaRow, ...] = ()  # every area, classified and located
    warnings: tuple[str, ...] = ()  # what weakens the advice: resets, estimates, the gate, notes
    tool_version: str = ""  # advisor version that wrote the report
    coverage: tuple[CoverageCheck, ...] = ()  # a report import checked against the report's own totals
    replay: tuple[ReplayCheck, ...] = ()  # traced requests replayed on the model, per disk (collect --trace)
    saturation: Saturation | None = None  # saturated disks: a plan's gain is work per second there
    model_basis: str | None = None  # the disk model the advice assumed and why (null: not recorded)
    no_plan: NoPlan | None = None  # why there is no plan to carry out (null: there is one worth it)
    outcome: Outcome | None = None  # verdict and disk time saved (null: a version 1-3 document)
    document: Literal["report"] = "report"  # always `report`
    format_version: int = REPORT_FORMAT_VERSION  # format version; newer versions are refused
