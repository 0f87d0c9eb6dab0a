"""``move_datadir.sh``: move PostgreSQL's data directory (the catalogs, pg_global) to its partition.

No SQL moves a catalog: ``pg_global`` and each database's catalogs in ``pg_default`` live in
the data directory and reach another partition only with it, copied while the server is
stopped. The path the server and its service know stays valid: the old path becomes a
symbolic link to the copy (PostgreSQL follows it like any directory), so neither a systemd
unit, ``pg_ctlcluster`` nor ``postmaster.opts`` needs an edit. ``pg_wal`` and the tablespaces
are symbolic links inside the data directory when they live elsewhere, and ``cp -a`` copies
the links, not what they point to. The old copy is kept, renamed, until the user removes it
(the script prints the command), so a failed start can go back by renaming it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from advisor.engine.areas import DATA_DIRECTORY
from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.quoting import shell
from advisor.engine.scripts.wal import FIND_PGDATA, server_options
from advisor.model import Script

_CHECKS = [
    "# everything that can fail is checked while the server still runs",
    'if [ "$PGDATA" = "$(cd "$NEW_DATA" 2>/dev/null && pwd -P || true)" ]; then',
    '  echo "the data directory is already in $NEW_DATA"; exit 0',
    "fi",
    'mkdir -p "$(dirname "$NEW_DATA")"',
    'test -w "$(dirname "$NEW_DATA")" || { echo "cannot write $(dirname "$NEW_DATA")" >&2; exit 1; }',
    'test ! -e "$NEW_DATA" || { echo "$NEW_DATA exists already" >&2; exit 1; }',
    'test -w "$(dirname "$RUNNING")" ||',
    '  { echo "cannot write $(dirname "$RUNNING") (the link goes there)" >&2; exit 1; }',
    "# the copy (links inside it are copied as links: pg_wal, pg_tblspc) must fit where it goes",
    'NEED_KB=$(du -sPk "$PGDATA" | cut -f1)',
    'FREE_KB=$(df -Pk "$(dirname "$NEW_DATA")" | awk \'NR == 2 {print $4}\')',
    'if [ "$NEED_KB" -ge "$FREE_KB" ]; then',
    '  echo "refused: the data directory needs $NEED_KB KiB, $(dirname "$NEW_DATA") has $FREE_KB KiB free" >&2; exit 1',
    "fi",
    'OLD_COPY="$PGDATA.before-move"',
    'test ! -e "$OLD_COPY" || { echo "$OLD_COPY exists already" >&2; exit 1; }',
]

_MOVE = [
    '"$PG_CTL" -D "$RUNNING" -w stop -m fast',
    'cp -a "$PGDATA" "$NEW_DATA"',
    "# the path the server is started with now leads to the copy",
    'if [ -L "$RUNNING" ]; then',
    '  mv "$PGDATA" "$OLD_COPY"; rm "$RUNNING"',
    "else",
    '  mv "$RUNNING" "$OLD_COPY"',
    "fi",
    'ln -s "$NEW_DATA" "$RUNNING"',
    'case "$SERVER_LOG" in "$PGDATA"/*) SERVER_LOG="$NEW_DATA/${SERVER_LOG#"$PGDATA"/}" ;; esac',
    '"$PG_CTL" -D "$RUNNING" -w -l "$SERVER_LOG" -p "$SERVER_BIN" -o "$SERVER_OPTS" start',
    'echo "the data directory is in $NEW_DATA ($RUNNING links there); the server runs again (its log: $SERVER_LOG)"',
    'echo "the old copy is $OLD_COPY: remove it (rm -rf) once the server is checked"',
]


def move_datadir_script(moves: Sequence[Move], settings: Mapping[str, str]) -> Script | None:
    """Shell script that copies the data directory to its partition while the server is stopped."""
    move = next((m for m in moves if m.area.name == DATA_DIRECTORY and m.area.tablespace == "pg_global"), None)
    if move is None:
        return None
    target = posixpath.join(move.mount, "data")
    text = "\n".join([
        "#!/bin/sh",
        "# Move the data directory (catalogs, pg_global) to its planned partition. Run as the server's OS",
        "# account (the owner of the postgres processes); the server is stopped while the copy runs and",
        "# started again with its own options. The old path becomes a link to the copy.",
        "set -eu",
        f"PLANNED_PGDATA={shell(settings.get('data_directory', ''))}",
        f"NEW_DATA={shell(target)}",
        *FIND_PGDATA, *server_options("move_datadir.server.log"), *_CHECKS, *_MOVE, "",
    ])
    return Script(name="move_datadir.sh", language="shell", text=text,
                  caveat="PostgreSQL is down while the data directory is copied (its size at the disk's rate).")
