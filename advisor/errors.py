"""Errors that reach the user, each with a documented exit code.

Every failure a user can cause (bad DSN, missing grant, corrupt file, unsafe bench target,
stats reset in the interval) is raised as an :class:`AdvisorError` subclass. The CLI turns
it into one line on stderr and the subclass's exit code; nothing else is printed, so no
traceback can leak a password. The codes are listed in ``docs/exit-codes.md``.
"""

from __future__ import annotations

from enum import IntEnum

from advisor.escape import shown
from advisor.secrets import redact

__all__ = ["redact"]  # re-exported: message paths import it from here


class ExitCode(IntEnum):
    """Process exit codes; stable, documented in docs/exit-codes.md."""

    OK = 0
    ERROR = 1  # unexpected failure inside advisor
    USAGE = 2  # bad command line (click's own code)
    CONNECTION = 3  # cannot reach or log in to the database
    PARTIAL = 4  # some collectors failed; output written with their status
    PRIVILEGE = 5  # connected, but a grant is missing
    BAD_INPUT = 6  # file missing, corrupt, truncated, not ours, newer format
    UNSUPPORTED = 7  # server kind or version not supported
    UNSAFE = 8  # refused: would write to a device not named as scratch
    RESET = 9  # statistics reset or restart inside the interval
    DEVICE = 10  # block layer or device problem (FIEMAP, O_DIRECT, loop, FUSE)
    INTERRUPTED = 130  # Ctrl-C


class AdvisorError(Exception):
    """Base of every error meant for the user: one line, no traceback."""

    exit_code: ExitCode = ExitCode.ERROR

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """Render as the single line printed on stderr (secrets redacted)."""
        text = self.message if not self.hint else f"{self.message} ({self.hint})"
        return shown(redact(" ".join(text.split())))  # a name quoted from a document cannot drive the terminal


class ConnectionFailed(AdvisorError):
    """The database could not be reached or refused the login."""

    exit_code = ExitCode.CONNECTION


class PrivilegeMissing(AdvisorError):
    """Connected, but the account lacks a grant; the message names it."""

    exit_code = ExitCode.PRIVILEGE


class BadInput(AdvisorError):
    """A file or argument is missing, corrupt, truncated, foreign or too new."""

    exit_code = ExitCode.BAD_INPUT


class Unsupported(AdvisorError):
    """The server, version, file system or device is not one advisor supports."""

    exit_code = ExitCode.UNSUPPORTED


class UnsafeTarget(AdvisorError):
    """Refused because the action could write to something not named as scratch."""

    exit_code = ExitCode.UNSAFE


class StatsReset(AdvisorError):
    """Counters were reset (or the server restarted) between two samples."""

    exit_code = ExitCode.RESET


class DeviceError(AdvisorError):
    """The block layer refused: FIEMAP, O_DIRECT, loop or FUSE problems."""

    exit_code = ExitCode.DEVICE


