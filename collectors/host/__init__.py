"""Host collector: where every database file lies on its disk, plus the disks' IO counters.

Registered as the ``host`` entry point of ``advisor.collectors``; it runs after the database
collectors and reads the paths they put in ``context.files``. Each FileIO gets one
Location: a data file and its 1 GB segments are merged (zone union, size-weighted mean,
extents summed); a WAL, temp or archive *directory* is located through the files inside
it (the WAL segments themselves), so the extents are real rather than the directory's
own block. A temp or archive directory that does not exist yet (``pgsql_tmp`` appears on
first use) is placed on the partition of its nearest existing parent, with a note. The
result, with every partition of the disks involved and a /proc/diskstats sample of them,
becomes ``context.layout``.

It must run on the database host. When the server's data_directory does not exist here, or
most paths are missing, it raises Unsupported so the run is recorded as skipped instead of
reporting every file as missing.
"""

from __future__ import annotations

import os

from advisor.collect.context import CollectContext
from advisor.errors import Unsupported
from advisor.model import FileIO, Location

MISSING_SHARE_LIMIT = 0.5  # more than this share of missing paths means "another host"
MISSING_SAMPLE = 1000  # paths checked for that, evenly spread over the list
DIRECTORY_KINDS = ("temp", "archive", "fra")  # created on first use: a missing one is not an error


def _paths_of(file: FileIO) -> list[str]:
    return [file.path, *file.segment_paths]


def _data_directory(context: CollectContext) -> str | None:
    return context.server.settings.get("data_directory") if context.server is not None else None


def _check_same_host(context: CollectContext, files: list[FileIO]) -> None:
    data_directory = _data_directory(context)
    if data_directory and not os.path.isdir(data_directory):
        raise Unsupported(f"not on the database host: data_directory {data_directory} does not exist here")
    firsts = [f.path for f in files if f.path]
    if len(firsts) > MISSING_SAMPLE:
        # An even sample tells "another host" from "a few dropped files" as well as all of them
        # would, without a system call per relation of a 100,000-relation cluster.
        step = len(firsts) / MISSING_SAMPLE
        firsts = [firsts[int(i * step)] for i in range(MISSING_SAMPLE)]
    if firsts:
        missing = sum(1 for p in firsts if not os.path.lexists(p))
        if missing / len(firsts) > MISSING_SHARE_LIMIT:
            raise Unsupported(
                f"not on the database host: {missing} of {len(firsts)} database files checked are missing here"
            )


class HostCollector:
    """The ``host`` plugin: a Collector without a connection (see advisor.collect.registry)."""

    name = "host"
    dbms = "host"

    def collect(self, conn: object, context: CollectContext) -> None:
        """Locate every file of ``context.files`` and store the HostLayout on the context."""
        from advisor.storage.layout import build_layout
        from advisor.storage.locate import Locator, merge

        files = list(context.files)
        data_directory = _data_directory(context)
        if not files and not data_directory:
            raise Unsupported("no database files to locate (no database collector ran)")
        _check_same_host(context, files)
        locator = Locator()
        # Every file and segment in one batch first (two cores for a large cluster); the
        # directories that may not exist yet are left to located() below.
        batch = list(dict.fromkeys(p for f in files if f.path and f.kind not in DIRECTORY_KINDS for p in _paths_of(f)))
        by_path: dict[str, Location] = dict(zip(batch, locator.locate_many(batch), strict=True))

        def located(path: str, kind: str = "data") -> Location:
            if path not in by_path:
                pending = kind in DIRECTORY_KINDS and not os.path.lexists(path)
                by_path[path] = locator.locate_pending(path) if pending else locator.locate(path)
            return by_path[path]

        locations: list[Location] = []
        seen: set[str] = set()
        for file in files:
            if not file.path or file.path in seen:
                continue
            seen.add(file.path)
            locations.append(merge(file.path, [located(p, file.kind) for p in _paths_of(file)]))
        if not locations and data_directory:
            locations.append(located(data_directory))  # nothing listed: at least the cluster's home
        layout = build_layout([loc.path for loc in locations], locator=locator, locations=locations)
        context.layout = layout
