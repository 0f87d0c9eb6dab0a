"""Process that serves the emulated disk's FUSE mount (``python -m advisor.disk.emulator.server``).

The FUSE server runs in a child process of its own, not in a thread of the caller, because
libfuse takes over SIGINT/SIGTERM/SIGHUP for the whole process, its worker threads would
compete for the caller's GIL while the caller measures latencies, and a crashed ctypes
callback must not take a test run down with it. The child is started in a new session so
a terminal Ctrl-C reaches only the supervising process, which detaches the loop device
first and then unmounts (that ends the child's FUSE loop).

Its single argument is a JSON object: ``mountpoint``, ``backing``, ``size_bytes``,
``scale``, ``timing`` (``"module:function"`` building the timing model) and
``timing_kwargs`` (a JSON object passed to it).
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import sys
from typing import Any

from advisor.disk.emulator.actuator import Actuator, Timing

PR_SET_TIMERSLACK = 29


def load_timing(path: str, kwargs: dict[str, Any]) -> Timing:
    """Call ``module:function`` with *kwargs* to build the timing model."""
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise ValueError(f"timing factory must look like 'module:function', not {path!r}")
    factory = getattr(importlib.import_module(module_name), attr)
    timing: Timing = factory(**kwargs)
    return timing


def mechanism_from_preset(preset: str, cache: str = "off", seed: int = 0, size_bytes: int | None = None,
                          smr: dict[str, Any] | None = None) -> Timing:
    """The disk model's mechanism for a catalogue preset (behind an SMR media cache if *smr*)."""
    from advisor.disk.emulator.timing import build_mechanism
    from advisor.disk.presets import get_model

    timing: Timing = build_mechanism(get_model(preset), cache=cache, seed=seed, size_bytes=size_bytes, smr=smr)
    return timing


def mechanism_from_model(model: dict[str, Any], cache: str = "off", seed: int = 0,
                         size_bytes: int | None = None, smr: dict[str, Any] | None = None) -> Timing:
    """The disk model's mechanism for a model passed as JSON (see ``emulator_model``)."""
    from advisor.disk.emulator.timing import build_mechanism, model_from_jsonable

    timing: Timing = build_mechanism(model_from_jsonable(model), cache=cache, seed=seed, size_bytes=size_bytes,
                                     smr=smr)
    return timing


def _tight_timers() -> None:
    """1 µs timer slack (default 50 µs) and a higher CPU priority: replies are released by
    sleeping, and on a busy machine a sleeper that wakes late makes the disk look slower.
    """
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    try:  # lowest real-time priority: ahead of ordinary work, bounded by the kernel's RT throttle
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except (OSError, AttributeError):
        try:
            os.setpriority(os.PRIO_PROCESS, 0, -10)
        except OSError:  # not root: normal priority
            pass


def serve(config: dict[str, Any]) -> None:
    """Mount the emulator at ``config['mountpoint']`` and serve until unmounted."""
    import mfusepy as fuse

    from advisor.disk.emulator.fs import MAX_IN_FLIGHT, EmulatorFS

    _tight_timers()
    timing = load_timing(config["timing"], dict(config.get("timing_kwargs", {})))
    size_bytes = int(config["size_bytes"])
    fd = os.open(config["backing"], os.O_RDWR | os.O_CLOEXEC)
    actuator = Actuator(timing, scale=float(config.get("scale", 1.0)))
    info = {"size_bytes": size_bytes, "backing": config["backing"], "timing": config["timing"],
            "timing_kwargs": config.get("timing_kwargs", {}), "pid": os.getpid()}
    operations = EmulatorFS(actuator, fd, size_bytes, info)
    try:
        fuse.FUSE(operations, config["mountpoint"], foreground=True, raw_fi=True, nothreads=False,
                  fsname="advisor-emulator", subtype="advisor-emulator", max_idle_threads=MAX_IN_FLIGHT,
                  max_threads=MAX_IN_FLIGHT + 4)
    finally:
        actuator.stop()
        os.close(fd)


def main(argv: list[str]) -> int:
    """Entry point of the child process."""
    if len(argv) != 2:
        print("usage: python -m advisor.disk.emulator.server CONFIG_JSON", file=sys.stderr)
        return 2
    serve(json.loads(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
