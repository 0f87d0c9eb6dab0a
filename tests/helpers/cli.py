"""The one way a test runs the ``advisor`` command: a real process, the tree under test, one environment.

A test that runs the CLI wants three things to hold whoever starts pytest and from where:

* **The code of this tree.** The command is ``python -P -m advisor`` with ``PYTHONPATH`` starting at
  the tree that holds this file, and ``ADVISOR_SQL_DIR`` at its ``sql/``. The installed ``advisor``
  console script is not used: it exists only after ``pip install``, and it imports whichever tree
  the environment's install points at (a second checkout sharing one virtualenv runs the other
  checkout's code, silently). ``-P`` keeps the working directory off ``sys.path``, so a test that
  runs in a temporary directory cannot import something else by accident. (That the console script
  itself is wired up is one test's business: tests/packaging/test_console_script.py.)
* **The same width everywhere.** ``COLUMNS`` is ``120`` (the documented width of piped output
  when ``COLUMNS`` is unset, docs/report.md "Width") unless the test says otherwise:
  ``env={"COLUMNS": "80"}`` sets another, ``env={"COLUMNS": None}`` removes it, so the command's
  own default applies. A developer's exported ``COLUMNS`` never reaches a test.
* **Everything else inherited.** ``os.environ`` is passed on (PATH, PG*, locale), with the test's
  *env* on top; a value of ``None`` removes that variable. A ``PYTHONPATH`` the test gives (a
  plugin's folder) is searched after the tree, never instead of it. Standard input is ``/dev/null`` unless
  *input* is given, as it is in CI, so a command never waits on a developer's terminal.

*timeout* (seconds) guards against a hang; it is not a performance check (those live in
benchmarks/). The default is generous for a loaded 2-core machine; a test whose point is "this
returns at once" passes a short one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

TREE = Path(__file__).resolve().parents[2]
COMMAND = (sys.executable, "-P", "-m", "advisor")
COLUMNS = "120"
TIMEOUT = 300.0


def advisor_env(env: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """The environment every advisor process of the tests gets (module docstring); *env* on top."""
    merged = {**os.environ, "ADVISOR_SQL_DIR": str(TREE / "sql"), "COLUMNS": COLUMNS}
    for name, value in (env or {}).items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    more = merged.get("PYTHONPATH")  # the test's own entries (a plugin's site folder) come after the tree
    merged["PYTHONPATH"] = os.pathsep.join([str(TREE), more] if more else [str(TREE)])
    return merged


def advisor_argv(*args: str, prefix: Sequence[str] = ()) -> list[str]:
    """``[*prefix, python, -P, -m, advisor, *args]``: *prefix* runs it under another program
    (``setpriv ...`` to drop privileges, ``env HOME=...``)."""
    return [*prefix, *COMMAND, *args]


def run_advisor(*args: str, env: Mapping[str, str | None] | None = None, timeout: float = TIMEOUT,
                cwd: Path | str | None = None, input: str | None = None, prefix: Sequence[str] = (),
                preexec_fn: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``advisor ARGS`` to the end; stdout and stderr captured as text, the exit code not checked."""
    return subprocess.run(advisor_argv(*args, prefix=prefix), capture_output=True, text=True, timeout=timeout,
                          env=advisor_env(env), cwd=cwd, input=input,
                          stdin=None if input is not None else subprocess.DEVNULL,
                          preexec_fn=preexec_fn, check=False)


def start_advisor(*args: str, env: Mapping[str, str | None] | None = None, cwd: Path | str | None = None,
                  prefix: Sequence[str] = (), stdout: int | None = subprocess.PIPE,
                  stderr: int | None = subprocess.PIPE) -> subprocess.Popen[str]:
    """Start ``advisor ARGS`` and return at once (to signal it, read it as it goes, or race it).

    The caller owns the process: it must wait for it, or kill it in a ``finally``."""
    return subprocess.Popen(advisor_argv(*args, prefix=prefix), stdin=subprocess.DEVNULL, stdout=stdout,
                            stderr=stderr, text=True, env=advisor_env(env), cwd=cwd)


def signalled(args: list[str], ready: Callable[[subprocess.Popen[str]], None],
              sig: signal.Signals) -> tuple[int, str]:
    """Start ``advisor ARGS``, wait for *ready* (it asserts or returns), send *sig*; (exit, stderr).

    The process is killed if anything goes wrong, so no test leaves a command running.
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


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single ``advisor: error:`` line of stderr; fails on a traceback or on any other line.

    This is the shape docs/exit-codes.md promises for bad input: one line, no traceback."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert "Traceback" not in result.stderr, result.stderr
    assert len(lines) == 1 and lines[0].startswith("advisor: error: "), result.stderr
    return lines[0]


def refused(result: subprocess.CompletedProcess[str], code: int, words: str = "") -> str:
    """Exit *code* with stderr exactly one ``advisor: error:`` line holding *words*; that line.

    Stricter than :func:`one_error_line`: not even a blank line may follow (the promise of
    docs/exit-codes.md read to the letter, for the bad-input tables of the CLI tests)."""
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("advisor: error: ") and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr, result.stderr
    return result.stderr.rstrip("\n")
