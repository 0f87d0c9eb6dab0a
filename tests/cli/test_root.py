"""The root command: ``--version``, and a reader that closes the pipe early.

``advisor sql list | head -1`` used to end in ``advisor: internal error: BrokenPipeError``
(exit 1); a closed pipe is the reader's choice, so advisor stops quietly as a shell tool
killed by SIGPIPE would (exit 141, nothing on stderr).
"""

from __future__ import annotations

import re
import subprocess
import sys

from advisor import __version__
from advisor.cli import PIPE_CLOSED


def test_version_prints_the_package_version() -> None:
    done = subprocess.run([sys.executable, "-m", "advisor", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(rf"advisor {re.escape(__version__)} \(Python 3\.\d+\.\d+\)\n", done.stdout)


def test_a_reader_that_stops_early_ends_advisor_quietly() -> None:
    with subprocess.Popen([sys.executable, "-m", "advisor", "sql", "list"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader is gone before advisor writes: its first write fails
        stderr = proc.stderr.read().decode()
        code = proc.wait(timeout=60)
    assert (code, stderr) == (PIPE_CLOSED, "")
