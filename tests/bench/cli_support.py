"""What the ``advisor bench`` tests share beyond running the CLI (tests/helpers/cli.py does that)."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable

import pytest

from tests.helpers.cli import TREE, start_advisor


def require_root() -> None:
    """Loop devices and mounts need root; say so instead of failing."""
    if os.geteuid() != 0:
        pytest.skip("needs root (loop devices, mounts)")


def signalled(args: list[str], ready: Callable[[subprocess.Popen[str]], None],
              sig: signal.Signals) -> tuple[int, str]:
    """Start ``advisor ARGS``, wait for *ready* (it asserts or returns), send *sig*; (exit, stderr).

    The process is killed if anything goes wrong, so no test leaves a bench running.
    """
    proc = start_advisor(*args, cwd=TREE)
    try:
        ready(proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err
