"""A document the repository cannot hold never blocks the spool, and cannot blind `fleet report`.

Real PostgreSQL: a text too long for the repository's indexes is refused when the document is
read (one line naming the field), before anything is sent; one that reaches the server anyway
(spooled or pushed by an older advisor) is refused by its SQLSTATE (54000, index row too large)
as the document's own fault and set aside, and the documents behind it arrive.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import count

pytestmark = [pytest.mark.pg, pytest.mark.slow]


def _with(source: Path, root: Path, filename: str, **server: str) -> Path:
    doc = json.loads(source.read_text())
    doc["server"].update(server)
    path = root / filename
    path.write_text(json.dumps(doc))
    return path


def _incompressible(n: int) -> str:
    """*n* characters PostgreSQL's compression cannot shrink below an index row's limit."""
    return secrets.token_urlsafe(n)[:n]


@pytest.mark.parametrize("field", ["identity", "host", "name", "instance"])
def test_a_text_too_long_for_an_index_is_refused_when_read(repo_server: PgServer, repo: str, field: str,
                                                           real_snapshots: list[Path], tmp_path: Path) -> None:
    long = _with(real_snapshots[0], tmp_path, "long.json", **{field: _incompressible(8000)})
    done = run_advisor("push", "--repo", repo, str(long), str(real_snapshots[1]),
                       env={"ADVISOR_SPOOL": str(tmp_path / "spool")})
    assert done.returncode == 6, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"advisor: error: {long}: server.{field} is 8000 bytes long; "), line
    assert "at most 256 bytes" in line, line
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 0  # nothing sent
    assert not (tmp_path / "spool").exists() or not list((tmp_path / "spool").iterdir())


def test_a_workload_source_too_long_is_refused_when_read(repo: str, real_snapshots: list[Path],
                                                         tmp_path: Path) -> None:
    work = tmp_path / "w.json"
    made = run_advisor("workload", str(real_snapshots[0]), str(real_snapshots[1]), "-f", "json", "-o", str(work))
    assert made.returncode == 0, made.stderr
    doc = json.loads(work.read_text())
    doc["source"] = "s" * 300
    work.write_text(json.dumps(doc))
    done = run_advisor("push", "--repo", repo, str(work), env={"ADVISOR_SPOOL": str(tmp_path / "spool")})
    assert done.returncode == 6 and "source is 300 bytes long" in done.stderr, done.stderr


def test_a_blocked_spool_lets_the_documents_behind_it_through(repo_server: PgServer, repo: str,
                                                              real_snapshots: list[Path], tmp_path: Path) -> None:
    """What an earlier advisor spooled: the document the repository refused first, good ones after it."""
    spool = tmp_path / "spool"
    spool.mkdir(mode=0o700)
    bad = _with(real_snapshots[0], tmp_path, "bad.json", identity=_incompressible(8000)).read_bytes()
    for raw in (bad, real_snapshots[1].read_bytes(), real_snapshots[2].read_bytes()):
        (spool / f"{hashlib.sha256(raw).hexdigest()}.json").write_bytes(raw)
    env = {"ADVISOR_SPOOL": str(spool)}
    done = run_advisor("push", "--repo", repo, env=env)
    assert done.returncode == 0, done.stderr
    assert "set aside as" in done.stderr and "server.identity is 8000 bytes long" in done.stderr, done.stderr
    assert "pushed 2 new, 0 already in the repository (2 from the spool)" in done.stderr, done.stderr
    assert sorted(p.suffix for p in spool.iterdir()) == [".rejected"]
    sampled = run_advisor("collect", "--dsn", repo_server.dsn, "--push", repo, env=env)
    assert sampled.returncode == 0 and "pushed 1 new" in sampled.stderr, sampled.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 3


def test_the_repository_refusing_a_document_by_its_sqlstate_is_the_documents_fault(
        repo_server: PgServer, repo: str, real_snapshots: list[Path]) -> None:
    """A document past every bound of this advisor (an older one read it) that the server cannot index."""
    from advisor.model import decode_snapshot
    from advisor.repo.connection import DocumentRefused, connect
    from advisor.repo.documents import Pushable, load_file
    from advisor.repo.ingest import push_many
    from advisor.repo.pusher import _batch

    doc = json.loads(real_snapshots[0].read_text())
    doc["server"]["identity"] = _incompressible(8000)
    raw = json.dumps(doc).encode()
    old = Pushable("snapshot", decode_snapshot(raw, "old.json"), raw, "old.json")
    good = load_file(real_snapshots[1])
    with connect(repo) as conn:
        with pytest.raises(DocumentRefused, match="index row"):
            push_many(conn, [old])
        outcomes = _batch(conn, [old, good], keep_documents=False)
    assert isinstance(outcomes[0], DocumentRefused) and "54000" in outcomes[0].one_line()
    assert outcomes[1:] == ["new"]
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 1


def test_a_huge_instance_id_does_not_collapse_the_fleet_table(repo_server: PgServer, repo: str,
                                                              real_snapshots: list[Path]) -> None:
    """An id an older advisor stored (compressible, so the index took it): the figures stay readable."""
    from advisor.fleet.summaries import default_summarizer, drain
    from advisor.model import decode_snapshot
    from advisor.repo.connection import connect
    from advisor.repo.documents import Pushable
    from advisor.repo.ingest import push_many

    items = []
    for path in real_snapshots:
        doc = json.loads(path.read_text())
        doc["server"]["identity"] = "7" * 100_000
        raw = json.dumps(doc).encode()
        items.append(Pushable("snapshot", decode_snapshot(raw, path.name), raw, path.name))
    with connect(repo) as conn:
        assert push_many(conn, items) == ["new"] * 3
        drain(conn, default_summarizer())
    done = run_advisor("fleet", "report", "--repo", repo, "--since", "30d", env={"COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= 100 for line in lines), max(len(line) for line in lines)
    top = next(n for n, line in enumerate(lines) if line.strip().startswith("instance"))
    header = lines[top] + lines[top + 1]
    assert all(words in header for words in ("saved", "wait %", "advice")), header
    assert "…" not in done.stdout  # no column squeezed to nothing, no id cut
    assert done.stdout.count("7") >= 100_000  # the whole id is shown, folded, never cut
