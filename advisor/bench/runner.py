"""One bench run: the selected tests on one target with one engine, into a profile.

The runner keeps its measurements as they arrive; if the run is interrupted (Ctrl-C) the
caller still gets a valid profile of what was measured, marked ``complete=False``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from advisor.bench.engines import Engine
from advisor.bench.machine import disk_of
from advisor.bench.profile import assemble
from advisor.bench.suite import BenchOptions, Measurements, run_suite
from advisor.bench.target import Target
from advisor.model.disk import DiskProfile


class BenchRun:
    """Runs the suite and assembles the profile, complete or partial."""

    def __init__(self, target: Target, engine: Engine, options: BenchOptions, rpm: int | None = None) -> None:
        self.target, self.engine, self.options, self.rpm = target, engine, options, rpm
        self.measurements = Measurements()
        self.stop = threading.Event()
        self.disk = disk_of(target.path)

    def run(self, progress: Callable[[str, int, int], None] | None = None) -> DiskProfile:
        """Measure everything selected; Ctrl-C propagates after the engines have stopped."""
        run_suite(self.engine, self.target, self.options, self.measurements, self.stop, progress)
        return self.profile(complete=not self.stop.is_set())

    def profile(self, complete: bool) -> DiskProfile:
        """The profile of what has been measured so far."""
        return assemble(self.target, self.engine.name, self.options, self.measurements,
                        complete=complete, rpm=self.rpm, disk=self.disk)
