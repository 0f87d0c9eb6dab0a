"""pgbench for the demo: load the tables into one tablespace, drive a read + commit mix, parse.

The demo's transaction reads a few random ``pgbench_accounts`` rows (one random 8 KiB read
each when the table does not fit in memory) and commits a small insert (one WAL flush).
That is the pattern the advice is about: random reads on the table's partition interleaved
with WAL writes on the WAL's partition, each switch a seek across the distance between them.
pgbench's per-statement latencies (``-r``) give the read latency beside the TPS.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from advisor.demo.embedded import EmbeddedServer
from advisor.errors import AdvisorError

_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"
_TPS = re.compile(rf"^tps = {_NUMBER}", re.M)
_LATENCY = re.compile(rf"^latency average = {_NUMBER} ms", re.M)
_PROCESSED = re.compile(r"^number of transactions actually processed: ([0-9]+)", re.M)
_FAILED = re.compile(r"^number of failed transactions: ([0-9]+)", re.M)
_STATEMENT = re.compile(rf"^\s+{_NUMBER}\s+(?:[0-9]+\s+)?(\S.*)$")


@dataclass(frozen=True)
class PgbenchResult:
    """What one pgbench run measured."""

    tps: float
    latency_ms: float  # mean transaction latency
    read_latency_ms: float | None  # mean of the SELECT statements' latencies
    commit_latency_ms: float | None  # mean of the other SQL statements (insert, END)
    transactions: int
    failed: int
    seconds: float
    clients: int
    statements: dict[str, float] = field(default_factory=dict)


def transaction_script(reads: int) -> str:
    """A transaction of *reads* random account lookups and one committed insert."""
    lines = ["\\set bid random(1, :scale)", "\\set tid random(1, 10 * :scale)", "\\set delta random(-5000, 5000)"]
    for i in range(1, reads + 1):
        lines.append(f"\\set aid{i} random(1, 100000 * :scale)")
    lines.append("BEGIN;")
    for i in range(1, reads + 1):
        lines.append(f"SELECT abalance FROM pgbench_accounts WHERE aid = :aid{i};")
    lines.append("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "
                 "VALUES (:tid, :bid, :aid1, :delta, CURRENT_TIMESTAMP);")
    lines.append("END;")
    return "\n".join(lines) + "\n"


def parse_output(text: str, *, seconds: float, clients: int) -> PgbenchResult:
    """Parse pgbench's summary (with ``-r`` statement latencies).

    >>> out = '''number of transactions actually processed: 120
    ... number of failed transactions: 0 (0.000%)
    ... latency average = 8.250 ms
    ... tps = 121.2 (without initial connection time)
    ... statement latencies in milliseconds and failures:
    ...          0.002           0  \\\\set aid1 random(1, 100000 * :scale)
    ...          3.100           0  SELECT abalance FROM pgbench_accounts WHERE aid = :aid1;
    ...          2.900           0  SELECT abalance FROM pgbench_accounts WHERE aid = :aid2;
    ...          2.000           0  END;
    ... '''
    >>> r = parse_output(out, seconds=1, clients=1)
    >>> r.tps, r.latency_ms, r.read_latency_ms, r.commit_latency_ms, r.transactions
    (121.2, 8.25, 3.0, 2.0, 120)
    """
    tps, latency, processed = _TPS.search(text), _LATENCY.search(text), _PROCESSED.search(text)
    if tps is None or latency is None or processed is None:
        raise AdvisorError("could not parse pgbench output: " + " | ".join(text.strip().splitlines()[-3:]))
    failed = _FAILED.search(text)
    statements: dict[str, float] = {}
    reads: list[float] = []
    others: list[float] = []
    in_statements = False
    for line in text.splitlines():
        if line.startswith("statement latencies"):
            in_statements = True
            continue
        match = _STATEMENT.match(line) if in_statements else None
        if match is None:
            continue
        value, statement = float(match.group(1)), match.group(2).strip()
        statements[statement] = value
        if statement.startswith("\\"):
            continue
        (reads if statement.upper().startswith("SELECT") else others).append(value)
    return PgbenchResult(
        tps=float(tps.group(1)),
        latency_ms=float(latency.group(1)),
        read_latency_ms=sum(reads) / len(reads) if reads else None,
        commit_latency_ms=sum(others) if others else None,
        transactions=int(processed.group(1)),
        failed=int(failed.group(1)) if failed else 0,
        seconds=seconds,
        clients=clients,
        statements=statements,
    )


def initialize(server: EmbeddedServer, *, scale: int, tablespace: str, fillfactor: int = 100) -> None:
    """``pgbench -i``: all four tables and their indexes in *tablespace*."""
    argv = [str(server.tool("pgbench")), "-i", "-q", "-s", str(scale), "-F", str(fillfactor),
            f"--tablespace={tablespace}", f"--index-tablespace={tablespace}", "-I", "dtGvp", server.dsn()]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        raise AdvisorError(f"pgbench -i failed: {done.stderr.strip().splitlines()[-1] if done.stderr else ''}")


def run(server: EmbeddedServer, script: Path, *, scale: int, seconds: int, clients: int = 1) -> PgbenchResult:
    """Run *script* for *seconds* with *clients* connections; parse the result.

    Custom scripts see ``:scale`` = 1 unless it is given, so *scale* is passed explicitly.
    """
    argv = [str(server.tool("pgbench")), "-n", "-r", "-s", str(scale), "-c", str(clients), "-j", str(min(clients, 2)),
            "-T", str(seconds), "-f", str(script), server.dsn()]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds * 4 + 120, check=False)
    if done.returncode != 0:
        raise AdvisorError(f"pgbench failed: {done.stderr.strip().splitlines()[-1] if done.stderr else ''}")
    return parse_output(done.stdout, seconds=seconds, clients=clients)
