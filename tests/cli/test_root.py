"""The root command: ``--version``, and a reader that closes the pipe early.

``advisor sql list | head -1`` used to end in ``advisor: internal error: BrokenPipeError``
(exit 1); a closed pipe is the reader's choice, so advisor stops quietly as a shell tool
killed by SIGPIPE would (exit 141, nothing on stderr).
"""

from __future__ import annotations

import re

from advisor import __version__
from advisor.cli import PIPE_CLOSED
from tests.helpers.cli import run_advisor, start_advisor


def test_version_prints_the_package_version() -> None:
    done = run_advisor("--version")
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(rf"advisor {re.escape(__version__)} \(Python 3\.\d+\.\d+\)\n", done.stdout)


def test_a_reader_that_stops_early_ends_advisor_quietly() -> None:
    with start_advisor("sql", "list") as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader is gone before advisor writes: its first write fails
        stderr = proc.stderr.read()
        code = proc.wait(timeout=60)
    assert (code, stderr) == (PIPE_CLOSED, "")
