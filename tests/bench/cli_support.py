"""Run ``advisor bench`` as a real subprocess and read what it wrote."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def advisor(*args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """``python -m advisor ARGS`` with stdout/stderr captured (stderr is not a terminal)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT, check=False)


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single ``advisor: error:`` line; fails on tracebacks or extra chatter."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert "Traceback" not in result.stderr, result.stderr
    assert len(lines) == 1 and lines[0].startswith("advisor: error: "), result.stderr
    return lines[0]


def require_root() -> None:
    """Loop devices and mounts need root; say so instead of failing."""
    if os.geteuid() != 0:
        pytest.skip("needs root (loop devices, mounts)")


def signalled(args: list[str], ready: Callable[[subprocess.Popen[str]], None],
              sig: signal.Signals) -> tuple[int, str]:
    """Start ``advisor ARGS``, wait for *ready* (it asserts or returns), send *sig*; (exit, stderr).

    The process is killed if anything goes wrong, so no test leaves a bench running.
    """
    proc = subprocess.Popen([sys.executable, "-m", "advisor", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        ready(proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err
