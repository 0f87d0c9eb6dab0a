"""Oracle --in-place: the staged steps rendered for the recorded 11.2, 12.1 and 19c servers.

The workload is the recorded V$ rows of each release (tests/oracle/oracle_scenarios.py) as
``advisor collect`` diffs them; the host side places /u01, /u02 and /u03 on three partitions
of one disk with the inner part unpartitioned. The SQL of every step is parsed (sqlparse)
and the order of the steps and of the statements in them is checked.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
import sqlparse

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.errors import BadInput
from advisor.model import Device, HostLayout, Location, Partition, Report
from advisor.rates.workload import diff
from tests.helpers.clock import AT
from tests.helpers.workloads import models
from tests.oracle.oracle_replay import Replay, take
from tests.oracle.oracle_scenarios import SCENARIOS

GB = 10**9
DISK = 500 * GB
MOUNTS = {"/u01": (1 << 20, 40 * GB), "/u02": (40 * GB + (1 << 20), 60 * GB), "/u03": (100 * GB + (1 << 20), 40 * GB)}


def _layout(paths: list[str]) -> HostLayout:
    parts = tuple(Partition(f"sdb{n}", "sdb", n, start, size, (mount,), "ext4", True)
                  for n, (mount, (start, size)) in enumerate(MOUNTS.items(), 1))
    locations = []
    for path in paths:
        part = next(p for p in parts if path.startswith(p.mountpoints[0] + "/"))
        zone = part.start_bytes / DISK, (part.start_bytes + part.size_bytes) / DISK
        locations.append(Location(path, "sdb", part.name, zone[0], zone[1], 1, GB, sum(zone) / 2))
    return HostLayout("dbhost", devices=(Device("sdb", "/dev/sdb", DISK, rotational=True),), partitions=parts,
                      locations=tuple(locations))


def _staged(replay: Replay, name: str, keep: tuple[str, ...] = (), **options: object) -> Report:
    """The recorded server staged in place; control files and the FRA left out unless *keep* names their kinds."""
    scenario = SCENARIOS[name]
    workload = diff(take(replay, scenario.connection(0)), take(replay, scenario.connection(1)))
    rates = tuple(dataclasses.replace(r, size_bytes=r.size_bytes or GB) for r in workload.rates
                  if r.path.startswith(tuple(MOUNTS)) and (r.kind not in ("control", "archive", "fra")
                                                           or r.kind in keep))
    workload = dataclasses.replace(workload, rates=rates, layout=_layout([r.path for r in rates]))
    return advise(AdviceRequest(workload, models(), PlanOptions(force=True, in_place=True, min_gain=0, **options),  # type: ignore[arg-type]
                  generated_at=AT))


def _statements(text: str) -> list[str]:
    """The SQL statements of a SQL*Plus script, each on one line (PL/SQL blocks end with '/')."""
    body = "\n".join(line for line in text.splitlines()
                     if line and not line.startswith(("--", "SET ", "WHENEVER ", "PAUSE ", "/")))
    return [str(s).strip() for s in sqlparse.parse(body) if str(s).strip()]


@pytest.mark.parametrize("name", ["11.2", "12.1", "19c"])
def test_the_steps_move_datafiles_by_release(replay: Replay, name: str) -> None:
    report = _staged(replay, name)
    plan = report.plan
    assert plan is not None and plan.stages, report.warnings
    scripts = {s.name: s for s in plan.scripts}
    assert "oracle.sql" not in scripts  # the steps do its work
    order = [s.number for s in plan.stages]
    assert order == list(range(1, len(order) + 1))
    kinds = [stage.title.split()[0] for stage in plan.stages]
    assert kinds.index("delete") > 0 and "make" in kinds  # something moved off before a partition went
    online = SCENARIOS[name].major >= 12
    moved_files = 0
    for stage in plan.stages:
        sql = [scripts[n] for n in stage.scripts if n.endswith("-oracle.sql")]
        if not sql:
            continue
        assert stage.scripts[0].endswith("-check.sh")  # the room check runs first
        text = sql[0].text
        statements = _statements(text)
        first_words = {statement.split()[0].upper() for statement in statements}
        assert statements and first_words <= {"ALTER", "DECLARE", "BEGIN", "SHUTDOWN", "STARTUP", "SELECT"}, statements
        moves = re.findall(r"ALTER DATABASE MOVE DATAFILE '([^']+)' TO '([^']+)'", text)
        renames = re.findall(r"ALTER DATABASE RENAME FILE '([^']+)' TO '([^']+)'", text)
        if online and moves:
            assert text.index("v$version") < text.index("ALTER DATABASE MOVE DATAFILE '")  # edition checked first
            assert not renames and f"{stage.scripts[0][:6]}-oracle-offline.sql" in stage.scripts
            moved_files += len(moves)
        elif online:  # temp files or redo only: the same statements on every edition, no check, no alternative
            assert "v$version" not in text and not renames
            assert not any(n.endswith("-offline.sql") for n in stage.scripts)
            assert stage.offline.startswith("nothing")
        else:
            assert not moves and "MOVE DATAFILE" not in text
            for tablespace in re.findall(r"ALTER TABLESPACE (\S+) OFFLINE NORMAL;", text):
                assert text.index(f"ALTER TABLESPACE {tablespace} OFFLINE") < text.index(
                    f"ALTER TABLESPACE {tablespace} ONLINE")
            moved_files += len(renames)
        for new in [n for _, n in moves + renames]:
            assert new.startswith(("/srv/advisor/", "/u0")), new
    assert moved_files > 0


def test_a_file_held_then_moved_in_keeps_its_new_name(replay: Replay) -> None:
    report = _staged(replay, "19c")
    assert report.plan is not None
    text = "\n".join(s.text for s in report.plan.scripts if s.name.endswith("-oracle.sql"))
    moves = re.findall(r"ALTER DATABASE MOVE DATAFILE '([^']+)' TO '([^']+)'", text)
    targets = [new for _, new in moves]
    for old, _ in moves:  # every file a step moves is where the recorded server or an earlier step put it
        assert old.startswith(tuple(MOUNTS)) and (old in targets or "advisor-staging" not in old)
    held = [new for _, new in moves if "advisor-staging" in new]
    assert all(any(old == h for old, _ in moves) for h in held)  # each held file moves on


def test_redo_moves_by_group_and_temp_by_tempfile(replay: Replay) -> None:
    report = _staged(replay, "19c")
    assert report.plan is not None
    text = "\n".join(s.text for s in report.plan.scripts if s.name.endswith("-oracle.sql"))
    if "ADD LOGFILE GROUP" in text:
        added = [int(n) for n in re.findall(r"ADD LOGFILE GROUP (\d+)", text)]
        dropped = [int(n) for n in re.findall(r"DROP LOGFILE GROUP (\d+)", text)]
        assert len(set(added)) == len(added) and set(dropped) <= set(added) | set(range(1, min(added)))
    if "ADD TEMPFILE" in text:
        assert text.index("ADD TEMPFILE") < text.index("DROP INCLUDING DATAFILES")


def test_oracle_with_a_spare_is_refused_with_the_way_that_works(replay: Replay) -> None:
    with pytest.raises(BadInput, match="leave out --spare"):
        _staged(replay, "19c", spare="/spare", spare_free_bytes=10**12)


def test_control_files_on_the_disk_are_refused_with_what_to_do_first(replay: Replay) -> None:
    with pytest.raises(BadInput, match=r"control .* cannot be staged: move the control files \(CONTROL_FILES"):
        _staged(replay, "19c", keep=("control",))


@pytest.mark.parametrize("name", ["11.2", "19c"])
def test_every_step_shell_script_parses(replay: Replay, name: str) -> None:
    import subprocess

    report = _staged(replay, name)
    assert report.plan is not None
    shells = [s for s in report.plan.scripts if s.language == "shell" and s.name.startswith("step")]
    assert {s.name.split("-", 1)[1] for s in shells} >= {"check.sh", "partitions.sh", "drop.sh"}
    for script in shells:
        assert subprocess.run(["sh", "-n"], input=script.text, text=True).returncode == 0, script.name
