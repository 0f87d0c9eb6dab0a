"""The collector's own catalog IO, kept out of the workload.

The collector's queries read catalog relations (pg_class, pg_index, pg_namespace, the
shared catalogs a new connection reads); a read that misses shared_buffers counts in that
relation's statistics like any other. PostgreSQL sends a backend's statistics only when it
is idle outside a transaction, so each connection reads its counters and then everything
else inside one transaction, and asks last, in the same transaction, what it read itself
since it last sent them (:file:`sql/postgres/own_io.v14.sql`, PostgreSQL 14-18): exactly the
reads that are not in the counters it just read and will be once the transaction ends. The
snapshot records them beside each relation's counters (``FileIO.collector_reads``,
``collector_scans``) and the diff to the next snapshot subtracts them
(:func:`advisor.rates.workload.file_rate`, :func:`advisor.rates.patterns.scans_between`).

What this does not catch: the reads a new connection makes while it starts (it sends them
before the first query), which are hits once the catalogs are cached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from advisor.collectors.postgres.rows import OwnIoRow
from advisor.collectors.postgres.session import run_query
from advisor.model import FileIO

OwnIo = dict[str, tuple[int, int]]
"""file_id -> (block reads, scans) the collector made that its counters do not hold yet."""


def own_io(conn: Any, major: int, datname: str) -> OwnIo:
    """This connection's pending reads and scans per relation, by the file_id the collector gives it."""
    found: OwnIo = {}
    for row in run_query(conn, OwnIoRow, "own_io", major):
        found[f"global/{row.oid}" if row.is_shared else f"{datname}/{row.oid}"] = (int(row.reads), int(row.scans))
    return found


def merge(parts: Sequence[OwnIo]) -> OwnIo:
    """The pending IO of several connections, summed per relation (shared catalogs from each)."""
    total: OwnIo = {}
    for part in parts:
        for file_id, (reads, scans) in part.items():
            old = total.get(file_id, (0, 0))
            total[file_id] = (old[0] + reads, old[1] + scans)
    return total


def with_own_io(files: Sequence[FileIO], own: Mapping[str, tuple[int, int]]) -> list[FileIO]:
    """*files* with the collector's pending reads and scans recorded beside their counters."""
    if not own:
        return list(files)
    out = []
    for file in files:
        extra = own.get(file.file_id)
        if extra is None or not any(extra):
            out.append(file)
            continue
        reads, scans = extra
        out.append(msgspec.structs.replace(file, collector_reads=reads,
                                           collector_scans=scans if file.scans is not None else 0))
    return out
