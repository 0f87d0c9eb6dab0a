"""Where each database's time per transaction went, on a disk several databases share.

A database's time per transaction is its sessions' requests per transaction times their session
time per request (the seconds its sessions were active over the requests they sent, the
inverse of the replay's rate, :mod:`advisor.engine.replay_issuers`). The replay predicts only
the second: it keeps every traced request, so a database whose transactions need more requests
after the move (its pages evicted from a buffer cache it shares with databases that now do
more work) loses time no disk model can see. Both parts are measured on each side, the first
from the traced sessions' requests over the transactions of the runs the trace covered, the
second from the traced rates of the reports before and after the move, so the table says how
much of each database's measured change is the disk's part, and how far the replay's own
figure for that part is from it. No target: the report calls these rates no prediction
(``rate_predicted`` false) on a disk several databases share, and gives at most their direction
(``rate_direction``, where every rotational phase replayed moves it beyond the replay's tolerance).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.accuracy_figures import group_time, main_issuers, pct, saved


def _per_transaction(who: dict[str, Any] | None, runs: list[dict[str, Any]], group: str) -> float | None:
    """Its sessions' traced requests over the transactions its client group finished in the runs the trace covered
    (``collect --trace`` spans every measured run of the side)."""
    transactions = sum((run.get("groups") or {}).get(group, {}).get("transactions") or 0 for run in runs)
    return None if who is None or not transactions else who["requests"] / transactions


def database_split(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Per primary client group of a workload of several databases (none for one database): the measured time
    saved per transaction, its requests per transaction before and after, the measured time saved per request
    of session time (from the traced rates, 1 - before / after), and the replay's figure for that part
    (1 - today's replayed rate / the planned one)."""
    groups = {g: spec for g, spec in (result.get("groups") or {}).items() if spec.get("primary")}
    if len({spec.get("database") for spec in groups.values()}) < 2 or not result.get("after"):
        return []
    before, after = (main_issuers((result.get(key) or {}).get("replay") or [], ("measured_rate",))
                     for key in ("report", "report_after"))
    rows = []
    for group, spec in groups.items():
        database = spec.get("database")
        was, now = before.get(database), after.get(database)
        rows.append({
            "group": group, "database": database,
            "time_per_transaction": saved(group_time(result["before"], group), group_time(result["after"], group)),
            "requests_before": _per_transaction(was, result["before"], group),
            "requests_after": _per_transaction(now, result["after"], group),
            # the inverse of a rate is the session time per request: 1 - (1/after) / (1/before)
            "session_time": saved(1.0 / was["measured_rate"], 1.0 / now["measured_rate"]) if was and now else None,
            "replay": saved(1.0 / was["replayed_rate"], 1.0 / was["planned_rate"])
            if was and was.get("replayed_rate") and was.get("planned_rate") else None,
            "rate_predicted": None if was is None else was.get("rate_predicted"),
            "rate_direction": None if was is None else was.get("rate_direction"),
        })
    return rows


def _requests(row: dict[str, Any]) -> str:
    was, now = row["requests_before"], row["requests_after"]
    if was is None or now is None or was <= 0:
        return "-"
    return f"{was:.3g} -> {now:.3g} ({(now / was - 1.0) * 100:+.1f} %)"


def render_split(comparisons: list[dict[str, Any]], console: Console) -> None:
    """The table of :func:`database_split`, for the workloads that have one."""
    rows = [(c["workload"], row) for c in comparisons for row in c.get("databases") or []]
    if not rows:
        return
    table = Table(title="Where each database's time per transaction went (time saved, 1 - after/before; no target)")
    for name in ("workload", "database", "per transaction", "requests / transaction", "per request of session time",
                 "replay", "err", "report"):
        table.add_column(name, justify="left" if name in ("workload", "database", "report") else "right")
    for workload, row in rows:
        err = "-" if row["replay"] is None or row["session_time"] is None else \
            f"{(row['replay'] - row['session_time']) * 100:+.1f}"
        said = {True: "predicted", False: "no prediction", None: "-"}[row["rate_predicted"]]
        if row.get("rate_direction"):  # a shared disk: the way its rate moves, not its figure
            said = f"direction: {row['rate_direction']}"
        table.add_row(workload, row["database"], pct(row["time_per_transaction"]), _requests(row),
                      pct(row["session_time"]), pct(row["replay"]), err, said)
    console.print(table)
