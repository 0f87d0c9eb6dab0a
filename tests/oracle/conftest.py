"""Fixtures for the Oracle tests: the replay harness is injected at the driver's connect seam."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.oracle.oracle_replay import ReplayConnection


@pytest.fixture
def replay(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[ReplayConnection], list[dict[str, Any]]]]:
    """Make ``oracledb.connect`` return the given replay connections in turn; yields the call log."""
    import oracledb

    calls: list[dict[str, Any]] = []
    queue: list[ReplayConnection] = []

    def fake_connect(**kwargs: Any) -> ReplayConnection:
        calls.append(kwargs)
        return queue.pop(0)

    monkeypatch.setattr(oracledb, "connect", fake_connect)

    def load(conn: ReplayConnection) -> list[dict[str, Any]]:
        queue.append(conn)
        return calls

    yield load
