"""Numbers that would reach a server (or a sleep) are checked when the command line is parsed.

``--statement-timeout 1e9`` used to travel to PostgreSQL as ``statement_timeout=1e12`` ms and
fail there as a connection error (exit 3); every case below must stop at parsing with exit 2,
before any connection is tried (the DSN points at a closed port, which would give exit 3).
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from advisor.cli import app
from advisor.cli.common import MAX_INTERVAL_S, MAX_STATEMENT_TIMEOUT_S
from advisor.errors import ExitCode
from tests.helpers.commands import leaf_commands

CLOSED = "host=127.0.0.1 port=1 connect_timeout=1"

REFUSED = [
    ["collect", "--dsn", CLOSED, "--statement-timeout", "1e9"],
    ["collect", "--dsn", CLOSED, "--statement-timeout", "nan"],
    ["collect", "--dsn", CLOSED, "--statement-timeout", "inf"],
    ["collect", "--dsn", CLOSED, "--statement-timeout", "0"],
    ["collect", "--dsn", CLOSED, "--interval", "nan"],
    ["collect", "--dsn", CLOSED, "--interval", "1e300"],
    ["collect", "--dsn", CLOSED, "--interval", "-1"],
    ["report", "--dsn", CLOSED, "--interval", "inf"],
    ["report", "--dsn", CLOSED, "--interval", "nan"],
    ["report", "--dsn", CLOSED, "--headroom", "nan"],
    ["where", "/", "--interval", "1e12"],
    ["sql", "show", "sizes", "--dbms", "oracle", "--version", "-1"],  # not a server: bad input, not "unsupported"
    ["sql", "show", "sizes", "--dbms", "postgres", "--version", "0"],
]


@pytest.mark.parametrize("args", REFUSED, ids=lambda a: " ".join(a[-3:]))
def test_out_of_range_numbers_stop_at_parsing(args: list[str]) -> None:
    done = CliRunner().invoke(app, args)
    assert done.exit_code == ExitCode.USAGE, done.output
    assert "Invalid value for" in done.output and "cannot connect" not in done.output


def test_the_largest_accepted_timeout_fits_the_servers_millisecond_counters() -> None:
    assert MAX_STATEMENT_TIMEOUT_S * 1000 <= 2**31 - 1  # PostgreSQL int GUC; Oracle call_timeout is uint32
    done = CliRunner().invoke(app, ["collect", "--dsn", CLOSED, "--statement-timeout", str(MAX_STATEMENT_TIMEOUT_S),
                                    "--interval", str(MAX_INTERVAL_S)])
    assert done.exit_code == ExitCode.CONNECTION, done.output  # accepted: it got as far as connecting


def test_every_float_option_of_every_command_refuses_nan_and_infinity() -> None:
    """Walked, not listed: a float option added without the ``finite`` callback fails here, since a
    range alone lets NaN through (it compares false with both bounds)."""
    from typer._click.core import Context
    from typer._click.exceptions import BadParameter
    from typer._click.types import FloatParamType

    checked, passed = [], []
    for path, command in leaf_commands():
        for param in command.params:
            if not isinstance(param.type, FloatParamType):
                continue
            for text in ("nan", "inf", "-inf"):
                checked.append((path, param.name, text))
                try:
                    param.process_value(Context(command), text)
                except BadParameter:
                    continue
                passed.append((path, param.name, text))
    assert len({(path, name) for path, name, _ in checked}) >= 12, checked  # the walk found the float options
    assert passed == []
