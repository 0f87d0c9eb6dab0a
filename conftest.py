"""Shared by the tests and the doctests: no test sees another's remembered passwords.

Collectors remember every password they parse (advisor/secrets.py) so that any later message
hides it; within one pytest process that memory would carry one test's passwords into the next
(a replayed Oracle DSN with password ``orcl`` would turn ``scott/tiger@orcl`` into
``scott/***@***`` in the redact doctest, depending on the order tests ran).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from advisor.secrets import forget_all


@pytest.fixture(autouse=True)
def _no_remembered_secrets() -> Iterator[None]:
    forget_all()
    yield
    forget_all()
