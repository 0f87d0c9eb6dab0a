"""Fixtures for the Oracle tests: the replay harness is injected at the driver's connect seam."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from oracle_replay import ReplayConnection  # noqa: E402


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
