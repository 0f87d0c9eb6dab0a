"""``--cache kept|lost`` for ``plan`` and ``report``: will the new server keep today's read cache?

Reads that the OS page cache or an array's cache served never reached a disk (READS_CACHED:
the kernel's counters for a live workload, the read times for a report import). ``kept``
(the default) plans by the reads a disk served, as the measurements show them today and as
the rest of the report already does; ``lost`` plans by every read the database reported,
for a move that loses that cache (direct IO or ASM instead of a buffered file system, less
free memory, no array cache). docs/awr-import.md, "Cached reads".
"""

from __future__ import annotations

import typer

from advisor.errors import BadInput

CACHE_HELP = ("kept (default): plan by the reads a disk served today (reads a cache served are shown, not "
              "planned); lost: the new server will not have today's cache, plan by every read reported.")


def cache_option() -> str:
    """The ``--cache`` option (a function so each command gets its own instance)."""
    value: str = typer.Option("kept", "--cache", metavar="kept|lost", help=CACHE_HELP)
    return value


def cache_kept(value: str) -> bool:
    """True for ``kept``, False for ``lost``; BadInput (exit 6) for anything else."""
    choice = value.strip().lower()
    if choice not in ("kept", "lost"):
        raise BadInput(f"--cache {value!r}: use kept or lost")
    return choice == "kept"
