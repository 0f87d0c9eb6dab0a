"""The live interval `collect --interval` and `report --dsn` share: two snapshots, a trace if asked.

Snapshot A, the trace started (``--trace``: the block layer's requests of the database's
disks, :mod:`advisor.collect.trace`), the wait, the trace stopped, snapshot B, and the
workload between them with the traces in it. Both commands say the same lines on stderr:
the settings that leave figures unknown, why there is no trace when there is none, and a
line per traced disk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from advisor.collect.sampling import LiveSession
    from advisor.model import Snapshot, Workload


def sample_interval(session: LiveSession, seconds: float, progress: Callable[[str], None], *, trace: bool,
                    allow_reset: bool, tick_every_s: float = 60.0,
                    on_first: Callable[[Snapshot], None] | None = None) -> tuple[Snapshot, Snapshot, Workload]:
    """Snapshots A and B *seconds* apart and the workload between them (with its traces when *trace*).

    *on_first* sees snapshot A once it is taken and the trace (when asked) is running, before
    the wait: the moment another program may start the load the interval is to measure.
    SIGTERM and SIGHUP unwind like Ctrl-C meanwhile: a ``kill`` of a background collect
    removes its tracefs instance too (exit 143 or 129).
    """
    from advisor.collect import sampling
    from advisor.collect.temp_watermark import TempWatermark
    from advisor.collect.trace import IntervalTrace, trace_summary
    from advisor.rates.workload import diff
    from advisor.signals import interruptible

    def warn(line: str) -> None:
        typer.echo(f"advisor: warning: {line}", err=True)

    watermark = TempWatermark(())
    with interruptible(), IntervalTrace(warn) as tracer:

        def after_first(first: Snapshot) -> None:
            nonlocal watermark
            say_preconditions(first)
            # the temp directories' high-water mark, sampled while the interval runs (peak_size)
            watermark = TempWatermark(f.path for f in first.files if f.kind == "temp")
            watermark.start()
            if trace:
                tracer.start(first)
            if on_first is not None:
                on_first(first)

        def before_second() -> None:
            watermark.stop()
            tracer.stop()

        first, second = sampling.sample_pair(session, seconds, progress, after_first=after_first,
                                             before_second=before_second, tick_every_s=tick_every_s)
    workload = replace(diff(first, second, allow_reset=allow_reset), temp_high_water_bytes=watermark.stop())
    if trace:
        workload = replace(workload, traces=tracer.traces(second, workload.interval_s))
        for line in trace_summary(workload.traces):
            typer.echo(f"advisor: {line}", err=True)
    return first, second, workload


def say_preconditions(snapshot: Snapshot) -> None:
    """Warn, before any wait, about settings that will leave figures of this collection unknown."""
    from advisor.collect.preconditions import timing_warnings

    for line in timing_warnings(snapshot):
        typer.echo(f"advisor: warning: {line}", err=True)
