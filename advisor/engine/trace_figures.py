"""What a workload's block-layer traces hold, as figures for ``advisor workload`` to show.

Per traced disk: the requests, the span the trace covers against the collect's interval,
the tracer's loss counters reconciled with diskstats, whether a replay may use it (and
what of it is unsound: :func:`advisor.trace.soundness.assess`, the rule the replay itself
applies), and how many requests were in flight: the mean (the requests' summed service
time over the span, Little's law) and the most at once. Per area (the engine's areas, as
the replay maps requests to them, :func:`engine.areas.area_of_path`): the read and write
requests in its files, their mean size, and the share of reads. Requests in no database
file's extents get a row of their own; cache flushes have no sector and belong to no area.
Where the collect named the trace's processes, how many served each database or were which
server process, and how many it did not name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from advisor.engine.areas import area_of_path
from advisor.engine.hot_objects import relation_objects
from advisor.engine.replay_issuers import issuer_of, named
from advisor.errors import BadInput
from advisor.model import BlockTrace, TraceLoss, Workload
from advisor.trace.codec import FLUSH, READ, SECTOR_BYTES, WRITE, Requests, decode_extents, decode_requests
from advisor.trace.extents import ExtentIndex
from advisor.trace.intervals import mean_in_flight
from advisor.trace.soundness import assess, loss_line
from advisor.units import KIB

NO_FILE = "(no database file)"
"""The row of the requests no database file's extents hold (file-system metadata, journal, other files)."""


@dataclass(frozen=True)
class TraceAreaFigures:
    """One area's read and write requests in a trace."""

    area: str
    requests: int
    mean_kib: float
    read_share: float  # reads / (reads + writes)


@dataclass(frozen=True)
class TraceDiskFigures:
    """One disk's trace, as ``advisor workload`` shows it."""

    disk: str
    requests: int
    span_s: float  # from the trace's start to its end
    interval_s: float
    loss: TraceLoss
    loss_words: str | None  # what it lost, in words (None: nothing)
    flushes: int
    mean_in_flight: float | None  # None without a request
    max_in_flight: int
    replayable: bool
    notes: tuple[str, ...]  # what of it is unsound and how a replay deals with it
    refused: str | None  # why a replay may not use it at all
    areas: tuple[TraceAreaFigures, ...] = ()
    issuers: tuple[tuple[str, int], ...] = ()  # (database or server role, processes), most first; none: unnamed
    unnamed_processes: int = 0  # processes the server did not name (kernel threads, or not seen while sampling)


def in_flight(requests: Requests) -> tuple[float | None, int]:
    """(mean, max) requests in flight between the first issue and the last completion.

    >>> import numpy as np
    >>> one = np.array([0.0, 0.5, 2.0]); zero = np.zeros(3, dtype=np.int64)
    >>> in_flight(Requests(one, np.array([1.0, 1.0, 1.0]), zero, zero, zero, zero))
    (1.0, 2)
    """
    if not len(requests):
        return None, 0
    issue, complete = requests.issue_s, requests.complete_s
    # Completions sort before issues at the same instant: a request that ends as the next begins is not overlap.
    times = np.concatenate([complete, issue])
    steps = np.concatenate([np.full(len(complete), -1), np.full(len(issue), 1)])
    order = np.lexsort((steps, times))
    most = int(np.cumsum(steps[order]).max())
    mean = mean_in_flight(issue, complete)
    return (mean if mean is not None else float(most)), most


def _areas(trace: BlockTrace, workload: Workload, requests: Requests) -> tuple[TraceAreaFigures, ...]:
    data = (requests.sectors > 0) & ((requests.op == READ) | (requests.op == WRITE))
    by_path = area_of_path(workload.rates, relation_objects(workload.rates))
    file_area = np.array([by_path.get(path) or NO_FILE for path in trace.files] + [NO_FILE], dtype=object)
    files = ExtentIndex(decode_extents(trace.extents, len(trace.files))).files(requests.sector * SECTOR_BYTES)
    names = file_area[np.where(files >= 0, files, len(trace.files))]
    rows = []
    for area in sorted({str(n) for n in names[data]}, key=lambda a: (a == NO_FILE, a)):
        mask = data & (names == area)
        count = int(mask.sum())
        reads = int(np.count_nonzero(requests.op[mask] == READ))
        rows.append(TraceAreaFigures(area, count, float(requests.sectors[mask].mean()) * SECTOR_BYTES / KIB,
                                     reads / count))
    return tuple(rows)


def _issuers(trace: BlockTrace) -> tuple[tuple[tuple[str, int], ...], int]:
    """Processes per issuer (:func:`advisor.engine.replay_issuers.issuer_of`), most first, and how many the
    server did not name; nothing when it named none (a trace collected before, or from Oracle)."""
    if not named(trace.processes):
        return (), 0
    counts: dict[str, int] = {}
    unnamed = 0
    for process in trace.processes:
        found = issuer_of(process)
        if found is None:
            unnamed += 1
        else:
            counts[found[0]] = counts.get(found[0], 0) + 1
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0]))), unnamed


def trace_figures(workload: Workload) -> list[TraceDiskFigures]:
    """The figures of every trace *workload* carries (none without ``collect --trace``)."""
    figures = []
    for trace in workload.traces:
        sound = assess(trace, workload.layout)
        try:
            requests = decode_requests(trace.data, trace.requests, trace.started_s)
            areas = _areas(trace, workload, requests)
        except BadInput as exc:  # its data cannot be read: said, the rest of the page goes on
            figures.append(TraceDiskFigures(trace.disk, trace.requests, trace.ended_s - trace.started_s,
                                            trace.interval_s, trace.loss, loss_line(trace), 0, None, 0, False, (),
                                            f"trace of {trace.disk}: {exc.one_line()}"))
            continue
        mean, most = in_flight(requests)
        issuers, unnamed = _issuers(trace)
        figures.append(TraceDiskFigures(
            disk=trace.disk, requests=trace.requests, span_s=trace.ended_s - trace.started_s,
            interval_s=trace.interval_s, loss=trace.loss, loss_words=loss_line(trace),
            flushes=int(np.count_nonzero(requests.op == FLUSH)), mean_in_flight=mean, max_in_flight=most,
            replayable=sound.requests is not None, notes=tuple(sound.notes), refused=sound.refused, areas=areas,
            issuers=issuers, unnamed_processes=unnamed))
    return figures
