"""The small figures every table of the accuracy suite takes from a run: a time saved, a side's mean,
a percentage cell, and the issuer row a database's rates are read from."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def saved(before: float | None, after: float | None) -> float | None:
    """Time saved, 1 - after / before; None where either is unknown or *before* is 0."""
    return 1.0 - after / before if before and after is not None else None


def mean(values: list[float | None]) -> float | None:
    """The mean of the known values; None for none."""
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def group_time(runs: list[dict[str, Any]], group: str) -> float | None:
    """Mean of the runs' times for *group* (ms)."""
    return mean([r["groups"][group]["time_ms"] for r in runs])


def pct(value: float | None) -> str:
    """A gain as a table cell: +12.3 %, or - for unknown."""
    return "-" if value is None else f"{value * 100:+.1f} %"


def main_issuers(checks: Iterable[dict[str, Any]], needs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per database, its issuer row (with every figure of *needs*) on the disk of *checks* that holds most of its
    requests: its sessions are the same on every disk, so their rate is taken there, whose replay keeps the other
    disks' requests at their traced pace (summing the disks would count the sessions' time once a disk)."""
    main: dict[str, dict[str, Any]] = {}
    for check in checks:
        for who in check.get("issuers") or []:
            if who.get("kind") == "database" and all(who.get(key) for key in needs) and \
                    who["requests"] > main.get(who["issuer"], {}).get("requests", -1):
                main[who["issuer"]] = who
    return main
