"""What makes a stored trace unfit for a replay, named, and the part that is sound.

Each case is said in one line and decided from the trace's typed fields:

* lost requests: the tracer's own counters (ring buffer overrun, dropped events) or fewer
  completions than /proc/diskstats counted beyond the requests in flight at the edges;
  replayed as traced up to :data:`LOST_LIMIT` of the requests, refused beyond;
* another disk: the trace's disk is not in the workload's layout, or has another size;
  refused (its sectors mean nothing on these disks);
* shorter than the interval (less than :data:`SHORT_LIMIT` of it): replayed, said;
* a clock step: the longest stretch between steps is replayed when it holds at least
  :data:`STEP_KEEP` of the requests, otherwise refused;
* requests to sectors no database file holds (file-system metadata, the journal, other
  files): replayed where they are (they load the disk) but never moved; refused when no
  request falls in a database file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from advisor.model import BlockTrace, HostLayout
from advisor.trace.codec import Requests, decode_requests

LOST_LIMIT = 0.10
SHORT_LIMIT = 0.90
STEP_KEEP = 0.5


def lost_requests(trace: BlockTrace) -> int:
    """Requests diskstats counted that the trace lacks, beyond the edges' in-flight ones."""
    missing = trace.loss.missing_requests or 0
    return max(0, missing - trace.loss.edge_requests)


def loss_line(trace: BlockTrace) -> str | None:
    """What the trace lost, in words; None when it lost nothing."""
    parts = []
    events = trace.loss.overrun + trace.loss.dropped_events
    if events:
        parts.append(f"the tracer dropped {events} events (ring buffer full)")
    lost = lost_requests(trace)
    if lost:
        parts.append(f"{lost} of the {trace.loss.diskstats_requests} requests diskstats counted are not in it")
    excess = max(0, (trace.loss.excess_requests or 0) - trace.loss.edge_requests)
    if excess:
        parts.append(f"{excess} more completions than the {trace.loss.diskstats_requests} diskstats counted "
                     "(requests of another device in it?)")
    if trace.loss.diskstats_requests is None:
        parts.append("no diskstats for the disk to check it against")
    return "; ".join(parts) or None


@dataclass
class Assessment:
    """The sound part of a trace (None when refused), what was wrong, and the refusal."""

    requests: Requests | None
    notes: list[str] = field(default_factory=list)
    refused: str | None = None


def _longest_run(count: int, steps: tuple[int, ...]) -> slice:
    cuts = [0, *sorted(s for s in steps if 0 < s < count), count]
    best = max(range(len(cuts) - 1), key=lambda i: cuts[i + 1] - cuts[i])
    return slice(cuts[best], cuts[best + 1])


def assess(trace: BlockTrace, layout: HostLayout | None) -> Assessment:
    """Decode *trace* and decide what of it a replay may use (see the module docstring)."""
    name = f"trace of {trace.disk}"
    sizes = {d.name: d.size_bytes for d in layout.devices} if layout is not None else {}
    if trace.disk not in sizes:
        return Assessment(None, refused=f"{name}: another disk (not in the workload's layout); no replay")
    if trace.disk_size_bytes and sizes[trace.disk] != trace.disk_size_bytes:
        return Assessment(None, refused=f"{name}: another disk ({trace.disk_size_bytes} bytes traced, "
                          f"{sizes[trace.disk]} in the layout); no replay")
    if trace.requests == 0:
        return Assessment(None, refused=f"{name}: no request was traced; no replay")
    requests = decode_requests(trace.data, trace.requests, trace.started_s, trace.encoding)
    notes = []
    lost = lost_requests(trace)
    counted = trace.loss.diskstats_requests
    if lost and counted and lost / counted > LOST_LIMIT:
        return Assessment(None, refused=f"{name}: lost {lost} of {counted} requests "
                          f"(more than {LOST_LIMIT:.0%}); no replay")
    said = loss_line(trace)
    if said:
        notes.append(f"{name}: {said}; replayed as traced")
    span = trace.ended_s - trace.started_s
    if trace.interval_s > 0 and span < SHORT_LIMIT * trace.interval_s:
        notes.append(f"{name}: covers {span:.1f} s of the {trace.interval_s:.1f} s interval; "
                     "replayed on what it covers")
    if trace.clock_steps:
        steps = len(trace.clock_steps)
        stepped = f"the clock stepped back {steps} time{'' if steps == 1 else 's'}"
        run = _longest_run(len(requests), trace.clock_steps)
        kept = run.stop - run.start
        if kept < STEP_KEEP * len(requests):
            return Assessment(None, refused=f"{name}: {stepped}; no stretch holds half the requests; no replay")
        notes.append(f"{name}: {stepped}; replayed on the longest steady stretch ({kept} of {len(requests)} "
                     "requests)")
        requests = requests.take(run)
    data = int(np.count_nonzero(requests.sectors > 0))
    if trace.mapped_requests == 0:
        return Assessment(None, refused=f"{name}: no request falls in a database file; no replay")
    unmapped = max(0, data - trace.mapped_requests) if not trace.clock_steps else None
    if unmapped:
        notes.append(f"{name}: {unmapped} of {data} requests are to sectors no database file holds "
                     "(file-system metadata, journal, other files): replayed in place, never moved")
    return Assessment(requests, notes)
