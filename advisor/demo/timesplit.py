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

The share alone misses two cases: a loss has no bound (a run can take ten times as long
while its host share moves at most 100 points), and a gain the host made when the run
*before* was the busy one lowers the host's share by less than that gain. So a second
check looks at the host's own time: the measured change G is the disk's part D plus the
host's part H (each one's change over the time before); when |H| > |G|/2 the disk's part
is not even within half of the claim either way, and the comparison is not valid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from advisor.demo.summary import Measurement
from advisor.disk.emulator.iotrace import IoTrace, TraceRecord

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
    total, reach = 0.0, start
    for rec in sorted(records, key=lambda r: r.arrived_s):
        lo, hi = max(rec.arrived_s, reach), min(rec.arrived_s + rec.model_s, end)
        if hi > lo:
            total += hi - lo
        reach = max(reach, hi)
    return round(total, 9)


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


@dataclass(frozen=True)
class Check:
    """One comparison of the host's share between the two runs."""

    level: str  # "run" (per transaction) or "read" (per SELECT)
    host_share_before: float | None
    host_share_after: float | None
    claimed_gain: float | None  # time saved, as the runs measure it
    passed: bool
    why: str
    disk_part: float | None = None  # of the time saved: the modelled disk's change ÷ the time before
    host_part: float | None = None  # ... and the host's (disk_part + host_part ≈ claimed_gain)


@dataclass(frozen=True)
class Verdict:
    """Whether the before/after comparison measures the disk, and why not when it does not."""

    valid: bool
    reason: str
    checks: tuple[Check, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"valid": self.valid, "reason": self.reason, "checks": [asdict(c) for c in self.checks]}


def _covered(split: TimeSplit, name: str) -> str | None:
    """Why *split* cannot be trusted as a split of its run (None when it can)."""
    if split.dropped:
        return f"the {name} run's trace dropped {split.dropped} requests"
    if split.measured_s <= 0 or split.host_share is None:
        return f"the {name} run has no traced requests"
    miss = abs(split.unaccounted_s) / split.measured_s
    if miss > COVERAGE_TOLERANCE:
        return (f"the {name} run's trace accounts for {split.disk_s + split.host_s:.1f} s of the "
                f"{split.measured_s:.1f} s pgbench measured")
    return None


def _parts(b: tuple[float | None, float | None, float | None],
           a: tuple[float | None, float | None]) -> tuple[float | None, float | None]:
    """(disk part, host part) of the time saved: each one's change over the measured time before.

    *b* is (measured, disk, host) before, *a* (disk, host) after, per transaction or per read.
    """
    measured, disk_b, host_b = b
    disk_a, host_a = a
    if not measured or None in (disk_b, host_b, disk_a, host_a):
        return None, None
    assert disk_b is not None and host_b is not None and disk_a is not None and host_a is not None
    return (disk_b - disk_a) / measured, (host_b - host_a) / measured


HOST_PART_LIMIT = 0.5  # the host's own change may be at most this fraction of the measured change


def _compare(level: str, before: float | None, after: float | None, gain: float | None,
             parts: tuple[float | None, float | None] = (None, None),
             host_ms: tuple[float | None, float | None] = (None, None)) -> Check:
    what = "run" if level == "run" else "read"
    if before is None or after is None or gain is None:
        return Check(level, before, after, gain, False, f"the host's share per {what} is unknown", *parts)
    change = after - before
    unit = "transaction" if level == "run" else "read"
    share_why = (f"the host's share per {what} went from {before:.1%} to {after:.1%} ({change * 100:+.1f} points), "
                 f"{'within' if abs(change) <= abs(gain) else 'more than'} the {gain:+.1%} time saved per {unit} "
                 "the runs measured")
    if abs(change) > abs(gain):
        return Check(level, before, after, gain, False, share_why, *parts)
    host = parts[1]
    if host is not None and abs(host) > HOST_PART_LIMIT * abs(gain):
        # The host's own time moved the result more than half as much as the whole change:
        # the disk's part is not what the runs measured (see the module docstring).
        times = (f" ({host_ms[0]:.2f} -> {host_ms[1]:.2f} ms)" if None not in host_ms else "")
        why = (f"the host's own time per {unit} changed by {-host:+.1%} of the time before{times}, more than "
               f"half the {-gain:+.1%} the time per {unit} changed in all (its share went from {before:.1%} "
               f"to {after:.1%})")
        return Check(level, before, after, gain, False, why, *parts)
    return Check(level, before, after, gain, True, share_why, *parts)


def judge(before: TimeSplit, after: TimeSplit, measured_gain: dict[str, float | None]) -> Verdict:
    """Valid when both runs are fully traced and the host's share moved less than each claimed gain."""
    for split, name in ((before, "before"), (after, "after")):
        problem = _covered(split, name)
        if problem is not None:
            return Verdict(False, problem + ": the host's share is unknown")
    per_tx = before.measured_s * 1000.0 / before.transactions if before.transactions else None
    checks = [_compare("run", before.host_share, after.host_share, measured_gain.get("latency"),
                       _parts((per_tx, before.transaction_disk_ms, before.transaction_host_ms),
                              (after.transaction_disk_ms, after.transaction_host_ms)),
                       (before.transaction_host_ms, after.transaction_host_ms))]
    if measured_gain.get("read_latency") is not None:
        checks.append(_compare("read", before.read_host_share, after.read_host_share,
                               measured_gain.get("read_latency"),
                               _parts((before.read_ms, before.read_disk_ms, before.read_host_ms),
                                      (after.read_disk_ms, after.read_host_ms)),
                               (before.read_host_ms, after.read_host_ms)))
    failed = [c for c in checks if not c.passed]
    if failed:
        return Verdict(False, failed[0].why + ": the host, not only the disk, changed between the runs",
                       tuple(checks))
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
