"""``postgres_drop_old.sql``: the optional last step, dropping the tablespaces the moves emptied.

A tablespace cannot change its LOCATION, so every move leaves the old tablespace behind,
empty; left there, the next report sees it and plans it again. The script checks first, in
every database the plan saw relations of, that nothing is left in it (a relation, or a
database whose default tablespace it is) and stops with the name of what is left; then
``DROP TABLESPACE`` makes its own last check over every database (it refuses a tablespace
whose directory still holds files). ``pg_default`` and ``pg_global`` are never dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.quoting import comment, ident, literal, psql_connect
from advisor.model import Script

BUILT_IN = frozenset({"pg_default", "pg_global"})

TEMPLATES = frozenset({"template0", "template1"})


def _still_used_check(tablespace: str) -> str:
    """A DO block that stops the script when *tablespace* still holds something in this database."""
    name = literal(tablespace)
    return (
        "DO $check$ BEGIN IF EXISTS (SELECT 1 FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace "
        f"WHERE t.spcname = {name}) OR EXISTS (SELECT 1 FROM pg_database d JOIN pg_tablespace t "
        f"ON t.oid = d.dattablespace WHERE t.spcname = {name}) THEN RAISE EXCEPTION "
        f"'tablespace % still holds relations in database % (or is a database''s default): not dropped', "
        f"{name}, current_database(); END IF; END $check$;"
    )


def drop_old_tablespaces_sql(moves: Sequence[Move]) -> Script | None:
    """The check and ``DROP TABLESPACE`` of every tablespace the plan's moves leave empty."""
    emptied = [m for m in moves if m.area.kind in ("tablespace", "temp") and m.area.tablespace
               and m.area.tablespace not in BUILT_IN]
    if not emptied:
        return None
    lines = [
        "-- Optional last step, after postgres.sql (and postgres_repack.sh) ran and the moved data was checked:",
        "-- drop the tablespaces the moves emptied. Run like postgres.sql: psql -v ON_ERROR_STOP=1 -f this-file.",
        "-- Each database the plan saw is checked first; DROP TABLESPACE refuses one whose directory still",
        "-- holds files (in any database), so nothing that still holds data is dropped.",
    ]
    for move in emptied:
        assert move.area.tablespace is not None
        databases = [c for c in move.area.containers if c and c not in TEMPLATES]
        lines.append(f"-- {comment(move.area.tablespace)}")
        for db in databases:
            lines.append(psql_connect(db))
            lines.append(_still_used_check(move.area.tablespace))
        if not databases:
            lines.append(_still_used_check(move.area.tablespace))
        lines.append(f"DROP TABLESPACE {ident(move.area.tablespace)};")
    return Script(name="postgres_drop_old.sql", language="sql", text="\n".join(lines) + "\n",
                  caveat="Drops the old tablespaces once they are empty; it stops at the first one that is not.")
