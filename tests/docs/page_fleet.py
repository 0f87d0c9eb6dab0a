"""fleet.md's inputs and the steps its sessions take between commands, made for real.

The first session: a fresh repository database on the docs tests' live server, five
PostgreSQL instances x 8 snapshots derived from a real pair collected on a loop disk
(``tests/repo/fleetgen.py``) and two hourly reports of three Oracle instances rendered by the
fixture generators; the page shows one import of six, the other four are made before the
snapshots are pushed. The second session (the spool): a repository server of its own that is
stopped, started, turned read-only and set to a newer schema version between the page's
commands (the comment of each command says which), spools owned by another user or left open
with files planted in them, a document dated 9999 and one that is not advisor's, and for
retention an old snapshot and a partition made by hand.

When fleet.md's output is regenerated, run its test with ``ADVISOR_DOCS_RECORD=DIR``
(tests/docs/test_page_transcripts.py) and paste ``DIR/fleet.txt`` over the page's outputs.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.docs.page_servers import advisor
from tests.helpers.pg import PgServer, available_versions, running_postgres

START = dt.datetime(2026, 11, 20, 0, 0, 4, tzinfo=dt.UTC)
ORACLE = (("SALES", "1000000", "sales1", 1.0, False), ("HR", "1000001", "hr1", 3.0, True),
          ("DWH", "1000002", "dwh1", 2.0, False))
"""fleet.md's Oracle instances: (database, DBID, instance, read latency factor, Statspack instead of AWR)."""
NOBODY = 65534
_SESSIONS: dict[Path, PgServer] = {}


def fleet_inputs(workdir: Path, server: PgServer, stack: ExitStack) -> dict[str, str]:
    """Both sessions' inputs; returns the page's spool directory and second repository → these."""
    from advisor.model import save
    from tests.repo.awrgen import report_of, sizes_of
    from tests.repo.fleetgen import derive, real_pair

    if os.geteuid() != 0:
        pytest.skip("the fleet's real pair is collected on a loop disk: needs root")
    if 18 not in available_versions():
        pytest.skip("the fleet's real pair is collected on PostgreSQL 18, not installed here")
    server.psql("CREATE DATABASE fleetdoc")
    pair = real_pair(workdir / "pair")
    for instance, series in derive(*pair, 5, 8, START):
        for number, snapshot in enumerate(series):
            save(snapshot, workdir / f"db{instance:03d}-{number:02d}.json")
    for n, (db, dbid, instance_name, latency, statspack) in enumerate(ORACLE):
        for hour in (8, 12):
            report_of(workdir / _report_name(db, hour, statspack), db_name=db, dbid=dbid, instance=instance_name,
                      host=f"ora{n}.example.net", begin=dt.datetime(2026, 11, 20, hour), snap=100 + hour,
                      latency=latency, statspack=statspack)
    sizes_of(workdir / "sales-sizes.csv", db_name="SALES", dbid="1000000")
    demo = workdir / "fleet-demo"
    _spool_documents(workdir, demo)
    session = stack.enter_context(running_postgres(max(available_versions()), workdir / "session"))
    session.psql("CREATE DATABASE fleet")
    advisor(workdir, "repo", "init", "--dsn", session.dsn_for("fleet"))
    session.stop()  # the page's spool session starts with the repository down
    _SESSIONS[workdir] = session
    stack.callback(_SESSIONS.pop, workdir, None)
    return {"/tmp/fleet-demo": str(demo), "port=52049 ": f"port={session.port} ", "port=35985 ": f"port={server.port} "}


def _report_name(db: str, hour: int, statspack: bool) -> str:
    return f"{db.lower()}-{hour:02d}.{'txt' if statspack else 'html'}"


def _spool_documents(workdir: Path, demo: Path) -> None:
    """The second session's documents (other instances' snapshots) and spools."""
    doc = demo / "doc"
    doc.mkdir(parents=True)
    for number in range(4):
        shutil.copy(workdir / f"db004-{number:02d}.json", doc / f"s{number}.json")
    shutil.copy(workdir / "db000-00.json", doc / "db000-00.json")
    far = json.loads((workdir / "db004-04.json").read_text())
    far["taken_at"] = "9999-12-31T00:00:00+00:00"
    (doc / "far.json").write_text(json.dumps(far))
    (demo / "not-ours.json").write_text('{"hello": "world"}\n')
    (demo / "spool").mkdir(mode=0o700)
    theirs = demo / "theirs"
    theirs.mkdir()
    os.chown(theirs, NOBODY, NOBODY)
    opened = demo / "open"
    opened.mkdir()
    opened.chmod(0o777)
    planted = (workdir / "db004-05.json").read_bytes()
    (opened / f"{hashlib.sha256(b'another document').hexdigest()}.json").write_bytes(planted)
    (opened / "notes.json").write_bytes(planted)


def fleet_env(workdir: Path) -> dict[str, str]:
    """The page's ``ADVISOR_SPOOL=/tmp/fleet-demo/spool``."""
    return {"ADVISOR_SPOOL": str(workdir / "fleet-demo" / "spool")}


def fleet_before(workdir: Path, server: PgServer, command: str) -> None:
    """What happens before a command of the page: imports, and the spool session's repository changes."""
    session = _SESSIONS[workdir]
    if "db00[0-3]" in command:  # the four imports of six the page does not show
        for db, _, _, _, statspack in ORACLE[1:]:
            for hour in (8, 12):
                name = _report_name(db, hour, statspack)
                advisor(workdir, "collect", "--from-report", name, "--push", server.dsn_for("fleetdoc"),
                        "-o", name.rsplit(".", 1)[0] + ".json")
    elif "# up again" in command:
        session.start()
    elif "# the repository turned read-only" in command:
        session.psql("ALTER DATABASE fleet SET default_transaction_read_only = on")
    elif "# writable again" in command:
        session.psql("ALTER DATABASE fleet RESET default_transaction_read_only")
    elif command.endswith("/doc/s0.json"):
        session.psql("INSERT INTO advisor.schema_version VALUES (99, 'from the future')", dbname="fleet")
    elif "# the repository back at version 2" in command:
        session.psql("DELETE FROM advisor.schema_version WHERE version = 99", dbname="fleet")
    elif "--keep 90d --dry-run" in command:  # an old snapshot, and a partition from before times were bounded
        old = json.loads((workdir / "db004-06.json").read_text())
        old["taken_at"] = "2026-01-15T10:00:00+00:00"
        (workdir / "old.json").write_text(json.dumps(old))
        advisor(workdir, "push", "--repo", session.dsn_for("fleet"), "old.json")
        session.psql("CREATE TABLE advisor.snapshots_999912 PARTITION OF advisor.snapshots "
                     "FOR VALUES FROM ('9999-12-01 00:00:00+00') TO ('10000-01-01 00:00:00+00')", dbname="fleet")
