"""A real PostgreSQL 18 with a hot table on a loop disk's inner edge and a cold one on its outer edge.

The layout the engine tests and the fleet tests start from: three ext4 partitions on a
scratch loop disk, tablespace ``cold`` on the outer one and ``hot`` on the inner one, a
100,000-row table in ``hot`` and a 20,000-row one in ``cold``, checkpointed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers.loopdisk import ScratchDisk, scratch_disk
from tests.helpers.pg import PgServer, running_postgres

LAYOUT = [("outer", 0.3), ("middle", 0.3), ("inner", 0.39)]


@contextmanager
def hot_and_cold(root: Path, disk_bytes: int) -> Iterator[tuple[ScratchDisk, PgServer, dict[str, Path]]]:
    """(disk, server, tablespace directories) for the duration of the ``with`` block."""
    with scratch_disk(disk_bytes, LAYOUT, image_dir=root / "disk") as disk:
        outer, inner = disk.partition("outer"), disk.partition("inner")
        assert outer.mountpoint is not None and inner.mountpoint is not None
        spaces = {"cold": outer.mountpoint / "ts_cold", "hot": inner.mountpoint / "ts_hot"}
        with running_postgres(18, root / "pg", tablespaces=spaces) as pg:
            pg.psql(
                "CREATE TABLE hot (id int, pad text) TABLESPACE hot;"
                "INSERT INTO hot SELECT g, repeat('h', 200) FROM generate_series(1, 100000) g;"
                "CREATE TABLE cold (id int, pad text) TABLESPACE cold;"
                "INSERT INTO cold SELECT g, repeat('c', 200) FROM generate_series(1, 20000) g;"
                "CHECKPOINT;"
            )
            yield disk, pg, spaces
