"""The response-time gate: placement only helps when the database waits on IO.

Method R / YAPP (Millsap and Holt; Vaidyanatha and Deshpande): response time is service
time plus wait time, and a change can only save the time spent in what it changes
(Amdahl's law). If IO waits are 15 % of DB time, making every IO twice as fast saves at most
7.5 % of response time, while the move itself costs locks, rewrites and risk. A good zone
plan cuts mean IO service time by 20-50 %, so below 20 % IO share the best case is a
response-time gain under 10 %: not worth moving files for. The threshold is documented in
docs/findings.md; ``--force`` plans anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from advisor.model import Finding, WaitProfile
from advisor.rates.io_share import describe

IO_SHARE_THRESHOLD = 0.20
"""Below this share of DB time in IO waits, placement changes are not worth their cost."""

TYPICAL_IO_GAIN = 0.4
"""A good zone plan's typical cut of mean IO service time, used for the best-case estimate."""


@dataclass(frozen=True, slots=True)
class GateResult:
    """Whether the workload is IO bound enough for placement to matter."""

    io_wait_share: float | None
    threshold: float
    passed: bool
    reason: str
    source: str = ""  # where the share came from: "counters", "pg_stat_activity", ...

    @property
    def best_case_gain(self) -> float | None:
        """Response-time gain if IO got ``TYPICAL_IO_GAIN`` faster (Amdahl)."""
        if self.io_wait_share is None:
            return None
        return self.io_wait_share * TYPICAL_IO_GAIN


def response_time_gate(io_wait_share: float | None, threshold: float = IO_SHARE_THRESHOLD) -> GateResult:
    """Apply the gate; an unknown share passes (we cannot tell), with a warning reason."""
    if io_wait_share is None:
        return GateResult(None, threshold, True, "IO share of DB time unknown (no wait sampling); gate not applied")
    share = max(0.0, min(1.0, io_wait_share))
    if share < threshold:
        return GateResult(
            share, threshold, False,
            f"only {share:.0%} of DB time waits on IO (< {threshold:.0%}): placement cannot gain much",
        )
    return GateResult(share, threshold, True, f"{share:.0%} of DB time waits on IO (>= {threshold:.0%})")


def gate_for_wait(wait: WaitProfile, threshold: float = IO_SHARE_THRESHOLD) -> GateResult:
    """The gate on a workload's wait profile; the reason says where the share came from.

    With PostgreSQL counters and samples both present the reason shows both and says the
    gate used the counters; with the timing settings off it says which one to turn on.
    """
    gate = response_time_gate(wait.io_wait_share, threshold)
    if wait.io_wait_share is None and any("track_io_timing" in note for note in wait.notes):
        gate = replace(gate, reason="IO share of DB time unknown (timing off, no wait sampling); gate not applied")
    details = describe(wait)
    if not details:
        return gate
    return replace(gate, reason=f"{gate.reason}. " + "; ".join(details), source=wait.source)


def not_io_bound_finding(gate: GateResult) -> Finding | None:
    """The NOT_IO_BOUND finding when the gate closed, else None."""
    if gate.passed or gate.io_wait_share is None:
        return None
    best = gate.best_case_gain or 0.0
    return Finding(
        code="NOT_IO_BOUND",
        severity="info",
        subject="database",
        title="The database is not IO bound: moving files will not help much",
        evidence={
            "io_wait_share": round(gate.io_wait_share, 4),
            "threshold": gate.threshold,
            "best_case_response_gain": round(best, 4),
            "source": gate.source or "unknown",
        },
        predicted_gain=round(best, 4),
        action=(
            "Tune what the time is spent on (CPU, locks, network, the application) first; "
            "rerun with --force to see a placement plan anyway."
        ),
    )
