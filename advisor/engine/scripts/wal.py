"""``move_wal.sh``: move PostgreSQL's pg_wal to its planned partition while the server is stopped.

The script must finish and leave the server as it was, only with pg_wal elsewhere:

* the data directory is the one of the server running *now* (``SHOW data_directory``, else
  ``$PGDATA``), not a path baked in from the snapshot, and a server that runs from another
  directory than the one the plan was made for is refused before anything stops;
* the restart keeps the server's own options: ``postmaster.opts`` holds the binary and the
  arguments it was started with (port, ``config_file`` ...), read the way ``pg_ctl restart``
  reads them, and the ``pg_ctl`` beside that binary starts it;
* ``pg_ctl start -l FILE`` gives the postmaster a log file for its stdout and stderr, so a
  caller that pipes the script (``sh move_wal.sh | tail``) gets its end of file when the
  script ends, instead of waiting for the server to exit.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.quoting import shell
from advisor.model import Script

FIND_PGDATA = [
    "# the data directory of the server running now: asked of the server (the PG* environment picks it),",
    "# else $PGDATA; a server on another directory than the plan's is refused before anything stops",
    "RUNNING=$(psql -X -w -A -t -q -d postgres -c 'SHOW data_directory' 2>/dev/null || true)",
    'if [ -z "$RUNNING" ]; then',
    '  RUNNING="${PGDATA:-}"',
    '  test -n "$RUNNING" || { echo "cannot ask the server for its data directory: '
    'set PGDATA to the data directory" >&2; exit 1; }',
    "fi",
    'test -f "$RUNNING/postmaster.pid" || { echo "no server runs from $RUNNING (no postmaster.pid)" >&2; exit 1; }',
    'PGDATA=$(cd "$RUNNING" && pwd -P)',
    'if [ -n "$PLANNED_PGDATA" ] && [ "$(cd "$PLANNED_PGDATA" 2>/dev/null && pwd -P)" != "$PGDATA" ]; then',
    '  echo "refused: the server runs from $PGDATA, the plan was made for $PLANNED_PGDATA: collect and plan again" >&2',
    "  exit 1",
    "fi",
]

def server_options(log_name: str) -> list[str]:
    """Shell lines setting SERVER_BIN, SERVER_OPTS, PG_CTL and SERVER_LOG from ``postmaster.opts``."""
    return [*_SERVER_OPTIONS, f'SERVER_LOG="${{SERVER_LOG:-$PGDATA/{log_name}}}"']


_SERVER_OPTIONS = [
    "# the binary and options the server was started with, as pg_ctl restart reads them",
    'OPTS_LINE=$(head -n 1 "$PGDATA/postmaster.opts")',
    'case "$OPTS_LINE" in',
    '  *" \\""*) SERVER_BIN=${OPTS_LINE%% \\"*}; SERVER_OPTS="\\"${OPTS_LINE#* \\"}" ;;',
    '  *) SERVER_BIN=$OPTS_LINE; SERVER_OPTS= ;;',
    "esac",
    'PG_CTL="$(dirname "$SERVER_BIN")/pg_ctl"',
    'test -x "$PG_CTL" || PG_CTL=$(command -v pg_ctl) ||',
    '  { echo "no pg_ctl beside $SERVER_BIN or on the PATH" >&2; exit 1; }',
    '# the restarted server writes its output here, not into the caller\'s stdout (a pipe would never close)',
]

_CHECKS = [
    "# everything that can fail is checked while the server still runs",
    'CURRENT=$(readlink -f "$PGDATA/pg_wal")',
    'if [ "$CURRENT" = "$(readlink -f "$NEW_WAL" 2>/dev/null || true)" ]; then',
    '  echo "pg_wal is already in $NEW_WAL"; exit 0',
    'fi',
    'mkdir -p "$(dirname "$NEW_WAL")"',
    'test -w "$(dirname "$NEW_WAL")" || { echo "cannot write $(dirname "$NEW_WAL")" >&2; exit 1; }',
    'test ! -e "$NEW_WAL" || { echo "$NEW_WAL exists already" >&2; exit 1; }',
    "# onto another file system mv copies: the WAL must fit there (a failed copy would leave the server down)",
    'if [ "$(stat -L -c %d "$CURRENT")" != "$(stat -L -c %d "$(dirname "$NEW_WAL")")" ]; then',
    '  NEED_KB=$(du -sk "$CURRENT" | cut -f1)',
    '  FREE_KB=$(df -Pk "$(dirname "$NEW_WAL")" | awk \'NR == 2 {print $4}\')',
    '  if [ "$NEED_KB" -ge "$FREE_KB" ]; then',
    '    echo "refused: pg_wal holds $NEED_KB KiB, $(dirname "$NEW_WAL") has $FREE_KB KiB free" >&2; exit 1',
    "  fi",
    "fi",
    'touch "$SERVER_LOG" || { echo "cannot write the server log $SERVER_LOG (set SERVER_LOG)" >&2; exit 1; }',
]

_MOVE = [
    '"$PG_CTL" -D "$PGDATA" -w stop -m fast',
    'mv "$CURRENT" "$NEW_WAL"',
    'if [ -L "$PGDATA/pg_wal" ]; then rm "$PGDATA/pg_wal"; fi',
    'ln -s "$NEW_WAL" "$PGDATA/pg_wal"',
    '"$PG_CTL" -D "$PGDATA" -w -l "$SERVER_LOG" -p "$SERVER_BIN" -o "$SERVER_OPTS" start',
    'echo "pg_wal is in $NEW_WAL; the server runs again (its log: $SERVER_LOG)"',
]


def move_wal_script(moves: Sequence[Move], settings: Mapping[str, str]) -> Script | None:
    """Shell script that moves pg_wal to its partition while PostgreSQL is stopped."""
    wal = next((m for m in moves if m.area.kind == "wal"), None)
    if wal is None:
        return None
    planned = settings.get("data_directory", "")
    target = posixpath.join(wal.mount, "pg_wal")
    text = "\n".join([
        "#!/bin/sh",
        "# Move pg_wal to its planned partition. Run as the server's OS account (the owner of the postgres",
        "# processes); the server is stopped meanwhile and started again with its own options.",
        "set -eu",
        f"PLANNED_PGDATA={shell(planned)}",
        f"NEW_WAL={shell(target)}",
        *FIND_PGDATA, *server_options("move_wal.server.log"), *_CHECKS, *_MOVE, "",
    ])
    return Script(
        name="move_wal.sh",
        language="shell",
        text=text,
        caveat="PostgreSQL is down between stop and start; a cross-filesystem mv copies all WAL first.",
    )
