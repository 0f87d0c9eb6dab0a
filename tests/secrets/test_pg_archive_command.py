"""A real server whose archive_command carries passwords: the snapshot never holds them.

``PGPASSWORD=... psql ...`` and ``curl -u user:pass ...`` are what archive commands really
look like; the collector stores settings masked by rule, so the snapshot file (and with it
the spool and the fleet repository) holds ``***`` where the secrets were, while the rest of
the command stays readable. The same snapshot then passes the push's secret check.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.repo.documents import load_file
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer, available_versions, running_postgres

pytestmark = [pytest.mark.pg, pytest.mark.slow]

PSQL_SECRET = "Pg7Leak4 x"
CURL_SECRET = "Cu8Leak9"
ARCHIVE_COMMAND = (
    f"test ! -f /nonexistent/%f && PGPASSWORD='{PSQL_SECRET}' psql -h /nonexistent -c 'select 1' ; "
    f"test ! -f /nonexistent/%f && curl -sf -u archiver:{CURL_SECRET} -T %p https://store.invalid/%f ; true"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    version = max(available_versions())
    settings = {"archive_mode": "on", "archive_command": ARCHIVE_COMMAND.replace("'", "''")}  # quoted by the helper
    with running_postgres(version, tmp_path_factory.mktemp("archcmd"), settings=settings) as started:
        yield started


def test_snapshot_holds_the_archive_command_without_its_passwords(server: PgServer, tmp_path: Path) -> None:
    shown = server.psql("SHOW archive_command").strip()
    assert PSQL_SECRET in shown and CURL_SECRET in shown  # the server really has them
    out = tmp_path / "snapshot.json"
    done = run_advisor("collect", "--dsn", server.dsn, "-o", str(out))
    assert done.returncode in (0, 4), done.stderr
    raw = out.read_text()
    for piece in ("Pg7Leak4", "Cu8Leak9"):
        assert piece not in raw and piece not in done.stderr
    stored = json.loads(raw)["server"]["settings"]["archive_command"]
    assert "PGPASSWORD=*** psql -h /nonexistent" in stored
    assert "curl -sf -u archiver:*** -T %p https://store.invalid/%f" in stored
    assert load_file(out).kind == "snapshot"  # the push's own check finds nothing left to refuse
