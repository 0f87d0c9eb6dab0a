"""Shared by the tests and the doctests: no test sees another's remembered passwords.

Collectors remember every password they parse (advisor/secrets.py) so that any later message
hides it; within one pytest process that memory would carry one test's passwords into the next
(a replayed Oracle DSN with password ``orcl`` would turn ``scott/tiger@orcl`` into
``scott/***@***`` in the redact doctest, depending on the order tests ran).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from advisor.secrets import forget_all

# Fixtures used by more than one test directory (tests/README.md, "Helpers").
pytest_plugins = ["tests.helpers.fixtures"]


@pytest.fixture(autouse=True)
def _no_remembered_secrets() -> Iterator[None]:
    forget_all()
    yield
    forget_all()


@pytest.fixture(autouse=True)
def _no_exported_columns() -> None:
    """Commands the tests run see the user's COLUMNS only when a test sets it.

    Importing readline (pytest's debugger support does) exports ``COLUMNS=80`` to the process
    environment behind ``os.environ``'s back; every child would then take it as the user's
    chosen width for piped output (docs/report.md, "Width")."""
    if "COLUMNS" not in os.environ:
        os.unsetenv("COLUMNS")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked ``alone`` times the emulated HDD against the host's clock: never beside a worker."""
    if item.get_closest_marker("alone") is not None and os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("marked alone: it times real reads and needs the machine to itself "
                    "(run it with `pytest -m alone`, without -n; `make pytest` does)")
