"""Where a measured run's time went: the modelled disk or the host, and whether a gain is the disk's.

pgbench measures everything between its client and the server: PostgreSQL's CPU, the
kernel, the emulator's plumbing and the modelled disk. On a busy machine the host's part
grows, and a before/after comparison then measures the machine's load as much as the
layout (a run under load once showed +6.8 % TPS and slower reads where the model
predicted 30 % less time). The emulated disk's trace (:mod:`advisor.disk.emulator.iotrace`)
knows how long the modelled disk took for each request, so each run is split:

* in total: the modelled disk's time is the union of the requests' modelled service
  intervals (``[arrival, arrival + model time]``), the host's is the rest of the traced
  run (the gaps when no request was at the disk, late replies included); both come from
  the emulator's clock and together must make up what pgbench measured with its own
  (``unaccounted_s`` says how far they are from it);
* per read: pgbench's mean SELECT latency, of which the modelled disk's part is the model
  time of every read the run made divided by the SELECTs it ran; the rest is the host's.

:func:`judge` then compares the host's share of the two runs. If the host's time stays
the same, its share still moves when the disk's time falls, but by less than the gain
(share after − share before = h·G/(1−G) < G for a host share h < 1 − G before and a gain
G), so a change larger than the claimed gain means the host itself changed between the
runs: the measurement is not valid and the demo claims no speed-up or loss from it.

The share alone misses three cases: a loss has no bound (a run can take ten times as long
while its host share moves at most 100 points), a gain the host made when the run
*before* was the busy one lowers the host's share by less than that gain, and a gain
made of time the trace never saw (each run's trace may miss up to ``COVERAGE_TOLERANCE``
of what pgbench measured, so two runs with the same disk and host time can differ by
18 %) moves no share at all. So a second check asks whether the modelled disk explains
the claim: the measured change G is the disk's part D, plus the host's part H, plus the
part U no trace saw (each one's change over the time before, per transaction whatever the
client count, or per read); the comparison is valid only when |G − D| ≤ |G|/2
(``DISK_PART_TOLERANCE``), the disk's part between half and one and a half times the claim.

Every figure must be a finite number: a NaN compares false with everything, and would
pass any rule written as "fail when greater than".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from advisor.demo.summary import Measurement
from advisor.disk.emulator.iotrace import IoTrace, TraceRecord
from advisor.trace.intervals import union_seconds

COVERAGE_TOLERANCE = 0.10  # the trace must account for the measured time within 10 %


@dataclass(frozen=True)
class TimeSplit:
    """One measured run, split into modelled-disk time and host time (real seconds / ms)."""

    measured_s: float  # pgbench: transactions × mean latency ÷ clients
    traced_s: float  # first arrival to last reply at the emulator
    disk_s: float  # union of the modelled service intervals
    host_s: float  # traced time when no request was at the modelled disk
    host_share: float | None  # host_s / (disk_s + host_s)
    unaccounted_s: float  # measured_s − disk_s − host_s (the trace's miss against pgbench's clock)
    requests: dict[str, int] = field(default_factory=dict)
    dropped: int = 0  # requests the trace could not keep (split unknown when > 0)
    transactions: int = 0
    transaction_ms: float | None = None  # pgbench's mean latency: what the two below are parts of
    transaction_disk_ms: float | None = None  # disk_s and host_s per transaction
    transaction_host_ms: float | None = None
    selects: int = 0
    reads_per_select: float | None = None
    read_ms: float | None = None  # pgbench's mean SELECT latency
    read_disk_ms: float | None = None  # modelled time of the run's reads per SELECT
    read_host_ms: float | None = None
    read_host_share: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return asdict(self)


def busy_union_s(records: tuple[TraceRecord, ...], start: float, end: float) -> float:
    """Seconds within [start, end] when at least one request was in the modelled disk.

    >>> from advisor.disk.emulator.iotrace import TraceRecord as R
    >>> busy_union_s((R("read", 0, 8192, 1.0, 1.5, 0.5), R("write", 0, 8192, 1.2, 1.9, 0.6),
    ...               R("flush", 0, 0, 3.0, 3.1, 0.1)), 0.0, 10.0)
    0.9
    """
    arrived = np.array([rec.arrived_s for rec in records], dtype=np.float64)
    served = arrived + np.array([rec.model_s for rec in records], dtype=np.float64)
    return round(union_seconds(arrived, served, start, end), 9)


def _select_count(measurement: Measurement) -> int:
    per_transaction = sum(1 for text in measurement.statements if text.upper().startswith("SELECT"))
    return measurement.transactions * per_transaction


def split_run(trace: IoTrace, measurement: Measurement) -> TimeSplit:
    """Split one pgbench run by the emulator's trace of the same run."""
    records = trace.records
    measured_s = measurement.transactions * measurement.latency_ms / 1000.0 / max(1, measurement.clients)
    requests = {op: sum(1 for r in records if r.op == op) for op in ("read", "write", "flush")}
    if not records:
        return TimeSplit(measured_s, 0.0, 0.0, 0.0, None, measured_s, requests, trace.dropped)
    start = min(r.arrived_s for r in records)
    end = max(max(r.replied_s, r.arrived_s + r.model_s) for r in records)
    disk_s = busy_union_s(records, start, end)
    host_s = (end - start) - disk_s
    selects = _select_count(measurement)

    def per_transaction(seconds: float) -> float | None:
        return 1000.0 * seconds * max(1, measurement.clients) / measurement.transactions \
            if measurement.transactions else None

    split = TimeSplit(measured_s=measured_s, traced_s=end - start, disk_s=disk_s, host_s=host_s,
                      host_share=host_s / (end - start) if end > start else None,
                      unaccounted_s=measured_s - disk_s - host_s, requests=requests, dropped=trace.dropped,
                      transactions=measurement.transactions, selects=selects,
                      transaction_ms=measurement.latency_ms if measurement.transactions else None,
                      transaction_disk_ms=per_transaction(disk_s), transaction_host_ms=per_transaction(host_s))
    if selects and measurement.read_latency_ms is not None:
        read_disk_ms = 1000.0 * sum(r.model_s for r in records if r.op == "read") / selects
        read_host_ms = measurement.read_latency_ms - read_disk_ms
        split = TimeSplit(**{**asdict(split), "reads_per_select": requests["read"] / selects,
                             "read_ms": measurement.read_latency_ms, "read_disk_ms": read_disk_ms,
                             "read_host_ms": read_host_ms,
                             "read_host_share": read_host_ms / measurement.read_latency_ms
                             if measurement.read_latency_ms > 0 else None})
    return split


Cause = Literal["unknown", "host", "untraced"]


@dataclass(frozen=True)
class Check:
    """One level's rules: the host's share between the two runs, and the disk's part of the change."""

    level: str  # "run" (per transaction) or "read" (per SELECT)
    host_share_before: float | None
    host_share_after: float | None
    claimed_gain: float | None  # time saved, as the runs measure it
    passed: bool
    why: str
    disk_part: float | None = None  # of the time saved: the modelled disk's change ÷ the time before
    host_part: float | None = None  # ... the host's
    untraced_part: float | None = None  # ... and what no trace saw: claimed_gain − disk_part − host_part
    cause: Cause | None = None  # why it failed: a figure unknown, the host's time, time no trace saw


@dataclass(frozen=True)
class Verdict:
    """Whether the before/after comparison measures the disk, and why not when it does not."""

    valid: bool
    reason: str
    checks: tuple[Check, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"valid": self.valid, "reason": self.reason, "checks": [asdict(c) for c in self.checks]}


def _signed(fraction: float) -> str:
    """``+12.3%``; a change that rounds to nothing prints as +0.0%, never -0.0%."""
    return f"{round(fraction, 6) + 0.0:+.1%}"


def _figure(fraction: float | None) -> str:
    """A fraction as a percentage, or what it is instead (unknown, nan, inf)."""
    if fraction is None:
        return "unknown"
    return f"{fraction:.1%}" if math.isfinite(fraction) else str(fraction)


def _finite(*figures: float | None) -> bool:
    """True when every figure is known and a number (NaN and ±inf compare false with every bound)."""
    return all(f is not None and math.isfinite(f) for f in figures)


def _covered(split: TimeSplit, name: str) -> str | None:
    """Why *split* cannot be trusted as a split of its run (None when it can)."""
    if split.dropped:
        return f"the {name} run's trace dropped {split.dropped} requests"
    if not _finite(split.measured_s, split.disk_s, split.host_s):
        return f"the {name} run's measured time is not a number ({split.measured_s} s)"
    if split.measured_s <= 0 or split.host_share is None:
        return f"the {name} run has no traced requests"
    miss = abs(split.unaccounted_s) / split.measured_s
    if miss > COVERAGE_TOLERANCE:
        return (f"the {name} run's trace accounts for {split.disk_s + split.host_s:.1f} s of the "
                f"{split.measured_s:.1f} s pgbench measured")
    return None


Parts = tuple[float | None, float | None, float | None]


def _parts(b: tuple[float | None, float | None, float | None], a: tuple[float | None, float | None],
           gain: float | None) -> Parts:
    """(disk, host, untraced) parts of the time saved: each one's change over the measured time before.

    *b* is (measured, disk, host) before, *a* (disk, host) after, per transaction or per read;
    the untraced part is what the measured *gain* holds beyond the other two.
    """
    measured, disk_b, host_b = b
    disk_a, host_a = a
    if not measured or gain is None or not _finite(measured, disk_b, host_b, disk_a, host_a, gain):
        return None, None, None
    assert disk_b is not None and host_b is not None and disk_a is not None and host_a is not None
    disk, host = (disk_b - disk_a) / measured, (host_b - host_a) / measured
    return disk, host, gain - disk - host


DISK_PART_TOLERANCE = 0.5  # the modelled disk's part must be within this fraction of the measured change


def _compare(level: str, before: float | None, after: float | None, gain: float | None,
             parts: Parts = (None, None, None),
             ms: tuple[tuple[float | None, float | None], tuple[float | None, float | None]] = ((None, None),
                                                                                               (None, None))) -> Check:
    """Both rules at one level; *ms* is ((disk before, after), (host before, after)) in ms."""
    what = "run" if level == "run" else "read"
    unit = "transaction" if level == "run" else "read"
    if not _finite(before, after, gain):
        return Check(level, before, after, gain, False, f"the host's share per {what} or the time saved per {unit} "
                     f"is unknown or not a number (share {_figure(before)} -> {_figure(after)}, saved {_figure(gain)})",
                     *parts, "unknown")
    assert before is not None and after is not None and gain is not None
    change = after - before
    share_why = (f"the host's share per {what} went from {before:.1%} to {after:.1%} ({change * 100:+.1f} points), "
                 f"{'within' if abs(change) <= abs(gain) else 'more than'} the {gain:+.1%} time saved per {unit} "
                 "the runs measured")
    if abs(change) > abs(gain):
        return Check(level, before, after, gain, False, share_why, *parts, "host")
    disk, host, untraced = parts
    if disk is None or host is None or untraced is None:
        return Check(level, before, after, gain, False, f"the modelled disk's and the host's parts of the time "
                     f"per {unit} are unknown or not a number", *parts, "unknown")
    if abs(gain - disk) <= DISK_PART_TOLERANCE * abs(gain):
        return Check(level, before, after, gain, True, share_why, *parts)
    # The modelled disk does not explain the measured change within half of it (module docstring):
    # name the larger of the other two parts as the cause.
    def times(pair: tuple[float | None, float | None]) -> str:
        return f" ({pair[0]:.2f} -> {pair[1]:.2f} ms)" if _finite(*pair) else ""

    if abs(host) >= abs(untraced):
        why = (f"the host's own time per {unit} changed by {_signed(-host)} of the time before{times(ms[1])}, "
               f"more than half the {_signed(-gain)} the time per {unit} changed in all (its share went from "
               f"{before:.1%} to {after:.1%})")
        return Check(level, before, after, gain, False, why, *parts, "host")
    why = (f"the modelled disk's time per {unit} changed by {_signed(-disk)} of the time before{times(ms[0])}, "
           f"not within half of the {_signed(-gain)} the time per {unit} changed in all: {_signed(-untraced)} is time "
           f"no trace saw (the host's own time {_signed(-host)})")
    return Check(level, before, after, gain, False, why, *parts, "untraced")


_CONCLUSION: dict[Cause, str] = {
    "unknown": "the comparison cannot be judged",
    "host": "the host, not only the disk, changed between the runs",
    "untraced": "the modelled disk does not explain the time saved",
}


def judge(before: TimeSplit, after: TimeSplit, measured_gain: dict[str, float | None]) -> Verdict:
    """Valid when both runs are fully traced and, per transaction and per read, the host's share
    moved less than the claimed gain and the modelled disk's part explains it within half."""
    for split, name in ((before, "before"), (after, "after")):
        problem = _covered(split, name)
        if problem is not None:
            return Verdict(False, problem + ": the host's share is unknown")
    gain = measured_gain.get("latency")
    checks = [_compare("run", before.host_share, after.host_share, gain,
                       _parts((before.transaction_ms, before.transaction_disk_ms, before.transaction_host_ms),
                              (after.transaction_disk_ms, after.transaction_host_ms), gain),
                       ((before.transaction_disk_ms, after.transaction_disk_ms),
                        (before.transaction_host_ms, after.transaction_host_ms)))]
    read_gain = measured_gain.get("read_latency")
    if read_gain is not None:
        checks.append(_compare("read", before.read_host_share, after.read_host_share, read_gain,
                               _parts((before.read_ms, before.read_disk_ms, before.read_host_ms),
                                      (after.read_disk_ms, after.read_host_ms), read_gain),
                               ((before.read_disk_ms, after.read_disk_ms), (before.read_host_ms, after.read_host_ms))))
    failed = [c for c in checks if not c.passed]
    if failed:
        cause = failed[0].cause or "unknown"
        return Verdict(False, f"{failed[0].why}: {_CONCLUSION[cause]}", tuple(checks))
    return Verdict(True, "; ".join(c.why for c in checks), tuple(checks))


@dataclass
class Comparison:
    """The after run the demo keeps, its split, the verdict, and the runs a retry replaced."""

    after: Measurement
    split: TimeSplit
    verdict: Verdict
    rejected: list[dict[str, Any]] = field(default_factory=list)

    @property
    def attempts(self) -> int:
        """Runs of the new layout measured (1, or 2 after a retry)."""
        return len(self.rejected) + 1

    def verdict_dict(self) -> dict[str, Any]:
        """The summary's ``verdict``: valid, reason, checks, attempts, and the rejected runs."""
        return {**self.verdict.as_dict(), "attempts": self.attempts, "rejected": self.rejected}


Run = tuple[Measurement, TimeSplit]


def compare_with_retry(before: Run, measure_after: Callable[[], Run], echo: Callable[[str], None]) -> Comparison:
    """Measure the new layout, judge it against *before*; when not valid, measure it once more.

    The old layout no longer exists once the plan is applied, so only the after run can be
    repeated: a retry helps when the host was busy during the first after run, not when it
    was busy during the before run (then the second verdict says so too).
    """
    from advisor.demo.summary import gains_between

    after, split = measure_after()
    verdict = judge(before[1], split, gains_between(before[0], after))
    comparison = Comparison(after, split, verdict)
    if verdict.valid:
        return comparison
    echo(f"  measurement not valid: {verdict.reason}; measuring the new layout once more")
    comparison.rejected.append({"after": asdict(after), "time_split": split.as_dict(), "reason": verdict.reason})
    after, split = measure_after()
    comparison.after, comparison.split = after, split
    comparison.verdict = judge(before[1], split, gains_between(before[0], after))
    return comparison
