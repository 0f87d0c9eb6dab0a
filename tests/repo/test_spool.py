"""The spool is trusted only when nobody else can put a document there.

Real directories and files, real pushes into a real repository: a spool others may write is
tightened, one another user owns is refused before anything is sent, and only files whose
name is the sha256 of their content, regular and owned by the pushing user, are pushed.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import count

pytestmark = [pytest.mark.pg, pytest.mark.slow]

NOBODY = 65534


def _spooled_name(raw: bytes) -> str:
    return f"{hashlib.sha256(raw).hexdigest()}.json"


def _other_instance(source: Path, n: int) -> bytes:
    doc = json.loads(source.read_text())
    doc["server"]["identity"] = f"planted-{n}"
    return json.dumps(doc).encode()


def test_a_spool_others_can_write_is_tightened(repo_server: PgServer, repo: str, real_snapshots: list[Path],
                                               tmp_path: Path) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    spool.chmod(0o777)
    done = run_advisor("push", "--repo", repo, "--spool", str(spool), str(real_snapshots[0]))
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(spool.stat().st_mode) == 0o700
    assert f"warning: the spool {spool} was open to other users (mode 777); now 0700" in done.stderr


@pytest.mark.root
def test_a_spool_another_user_owns_is_refused_before_anything_is_sent(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the directory to another user")
    spool = tmp_path / "theirs"
    spool.mkdir(mode=0o700)
    raw = _other_instance(real_snapshots[0], 1)
    (spool / _spooled_name(raw)).write_bytes(raw)
    os.chown(spool / _spooled_name(raw), NOBODY, NOBODY)
    os.chown(spool, NOBODY, NOBODY)
    done = run_advisor("push", "--repo", repo, "--spool", str(spool), str(real_snapshots[1]))
    assert done.returncode == 6, done.stderr
    assert done.stderr.strip() == (
        f"advisor: error: the spool {spool} belongs to uid {NOBODY}, not to this user (uid 0): its owner could "
        "put documents there that would be pushed with this user's role (use a spool directory of your own: "
        "--spool DIR or $ADVISOR_SPOOL)")
    sampled = run_advisor("collect", "--dsn", repo_server.dsn, "--push", repo, env={"ADVISOR_SPOOL": str(spool)})
    assert sampled.returncode == 6 and "belongs to uid" in sampled.stderr, sampled.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 0


@pytest.mark.root
def test_only_what_advisor_spooled_is_pushed(repo_server: PgServer, repo: str, real_snapshots: list[Path],
                                             tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file to another user")
    spool = tmp_path / "spool"
    spool.mkdir(mode=0o700)
    genuine = _other_instance(real_snapshots[0], 0)
    (spool / _spooled_name(genuine)).write_bytes(genuine)
    wrong_name = _other_instance(real_snapshots[0], 1)
    (spool / "evil.json").write_bytes(wrong_name)
    altered = _other_instance(real_snapshots[0], 2)
    (spool / _spooled_name(altered)).write_bytes(_other_instance(real_snapshots[0], 3))
    foreign = _other_instance(real_snapshots[0], 4)
    (spool / _spooled_name(foreign)).write_bytes(foreign)
    os.chown(spool / _spooled_name(foreign), NOBODY, NOBODY)
    linked = _other_instance(real_snapshots[0], 5)
    (tmp_path / "elsewhere.json").write_bytes(linked)
    (spool / _spooled_name(linked)).symlink_to(tmp_path / "elsewhere.json")

    done = run_advisor("push", "--repo", repo, "--spool", str(spool))
    assert done.returncode == 0, done.stderr
    assert "pushed 1 new, 0 already in the repository (1 from the spool)" in done.stderr, done.stderr
    identities = repo_server.psql("SELECT string_agg(split_part(instance_id, ':', 2), ',') FROM advisor.snapshots",
                                  dbname=repo.split("dbname=")[1].split()[0])
    assert identities == "planted-0"
    warnings = [line for line in done.stderr.splitlines() if "set aside" in line]
    assert len(warnings) == 4, done.stderr
    assert any("evil.json: not a name advisor gives" in w for w in warnings)
    assert any("its content is not the document its name says" in w for w in warnings)
    assert any(f"belongs to uid {NOBODY}" in w for w in warnings)
    assert any("cannot be read as a regular file" in w for w in warnings)
    assert sorted(p.name for p in spool.iterdir()) == sorted(
        ["evil.rejected", *(n[:-5] + ".rejected" for n in map(_spooled_name, (altered, foreign, linked)))])
