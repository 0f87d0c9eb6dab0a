"""Generated scripts: hostile names and paths come out harmless; sfdisk output is real GPT input."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from advisor.disk.physics import ModelPhysics
from advisor.engine.advise import AdviceRequest, Models, advise
from advisor.engine.planner import PlanOptions
from tests.engine.hostile_plan import (
    EVIL,
    EVIL_NL,
    PGDATA,
    QUOTED_DIR,
    hostile_plan,
    idents_of,
    literals_of,
    script_named,
    sql_statements,
    sqlplus_statements,
)
from tests.helpers.cli import run_advisor
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, model, workload


def test_postgres_sql_survives_hostile_names_and_paths() -> None:
    plan = hostile_plan()
    statements = sql_statements(script_named(plan, "postgres.sql").text)
    kinds = [s.get_type() for s in statements]
    # 2 data tablespaces: CREATE + 3 ALTER each; temp: CREATE; temp_tablespaces ALTER + SELECT; archive ALTER + SELECT
    assert kinds.count("CREATE") == 3
    assert kinds.count("ALTER") == 2 * 3 + 1 + 1
    assert kinds.count("SELECT") == 2
    assert len(statements) == 3 + 8 + 2 + 2 * 2  # SET/RESET client_min_messages around each database's moves
    assert "DROP" not in kinds
    idents = [name for s in statements for name in idents_of(s)]
    assert EVIL in idents, "the hostile tablespace is one identifier, quote doubled"
    assert EVIL_NL in idents, "a name with a line break is kept exactly (psql reads it inside the quotes)"
    created = [name for s in statements if s.get_type() == "CREATE" for name in idents_of(s)]
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", name) for name in created), "new tablespace names need no quotes"
    assert len(set(created)) == len(created)
    locations = [lit for s in statements if s.get_type() == "CREATE" for lit in literals_of(s)]
    assert all(loc.startswith(QUOTED_DIR + "/") for loc in locations), locations


def test_shell_scripts_parse_and_paths_round_trip(tmp_path: Path) -> None:
    plan = hostile_plan()
    wal = script_named(plan, "move_wal.sh").text
    check = subprocess.run(["bash", "-n"], input=wal, text=True, capture_output=True)
    assert check.returncode == 0, check.stderr
    assignments = "\n".join(line for line in wal.splitlines() if line.startswith(("PLANNED_PGDATA=", "NEW_WAL=")))
    out = subprocess.run(["sh", "-c", assignments + '\nprintf "%s\\n%s" "$PLANNED_PGDATA" "$NEW_WAL"'], text=True,
                         capture_output=True, check=True, cwd=tmp_path)
    wal_label = next(p.label for p in plan.partitions if "WAL" in p.areas)
    assert out.stdout.split("\n") == [PGDATA, f"{QUOTED_DIR}/{wal_label}/pg_wal"]
    repack = script_named(plan, "postgres_repack.sh").text
    assert subprocess.run(["bash", "-n"], input=repack, text=True).returncode == 0
    script = tmp_path / "repack.sh"
    script.write_text(repack)
    # run the script with pg_repack defined as a shell function that prints its arguments back
    shown = subprocess.run(
        ["bash", "-c", 'pg_repack() { for a in "$@"; do printf "%s\\0" "$a"; done; printf "\\1"; }; . "$0"',
         str(script)], capture_output=True, check=True).stdout.decode()
    words = [record.split("\0")[:-1] for record in shown.split("\1")[:-1]]
    # pg_repack casts --table to regclass: it receives the SQL-quoted qualified name
    evil_nl_table = '"public".' + '"' + EVIL_NL + '_0"'
    assert ["--dbname=app", f"--table={evil_nl_table}"] == [w for w in words if EVIL_NL in w[1]][0][:2]
    evil_label = next(p.label for p in plan.partitions if EVIL in p.areas)
    evil_tablespace = f"--tablespace={evil_label}_x_drop_table_t_"
    assert [w[2].startswith(evil_tablespace) for w in words].count(True) == 2  # its two relations
    assert not Path("/tmp/pwned").exists()


@pytest.mark.parametrize("version_num", [190000, 110204])
def test_oracle_sql_survives_hostile_names(version_num: int, tmp_path: Path) -> None:
    plan = hostile_plan("oracle", version_num)
    sql = script_named(plan, "oracle.sql").text
    statements = sqlplus_statements(sql)
    kinds = [s.get_type() for s in statements]
    assert "DROP" not in kinds and set(kinds) <= {"ALTER"}
    text = " ".join(" ".join(str(s).split()) for s in statements)
    if version_num >= 120000:
        moves = [s for s in statements if "MOVE DATAFILE" in str(s).upper()]
        assert len(moves) == 2  # two files of the hostile tablespace; the other's name holds a line break
        literals = [lit for s in moves for lit in literals_of(s)]
        assert "/db/it's evil/f0" in literals and any(lit.startswith(QUOTED_DIR) for lit in literals)
    else:
        assert "OFFLINE NORMAL" in text.upper() and "RENAME FILE" in text.upper()
        offline = [s for s in statements if "OFFLINE" in str(s).upper()]
        assert EVIL in [i for s in offline for i in idents_of(s)]
        shell = script_named(plan, "oracle_move_files.sh").text
        assert subprocess.run(["bash", "-n"], input=shell, text=True).returncode == 0
        moved = [shlex.split(line) for line in shell.splitlines() if line.strip().startswith("mv ")]
        assert all(len(m) == 3 for m in moved) and len(moved) == 2
        assert any(m[1] == "/db/it's evil/f0" and m[2].startswith(QUOTED_DIR + "/") and m[2].endswith("/f0")
                   for m in moved)
    assert "ADD LOGFILE GROUP" in text.upper() and "SWITCH LOGFILE" in text.upper()
    assert "ADD TEMPFILE" in text.upper() and "DROP INCLUDING DATAFILES" in text.upper()
    assert "DB_RECOVERY_FILE_DEST_SIZE" in text.upper()
    assert "DROP LOGFILE GROUP" not in text.upper(), "old group numbers are unknown here: nothing is dropped blindly"
    skipped = [line for line in sql.splitlines() if "holds a line break" in line]
    assert len(skipped) == 1 and skipped[0].startswith("-- y DROP TABLE t"), "left out, and said so"


def test_asm_files_get_intelligent_data_placement_with_caveats() -> None:
    plan = hostile_plan("oracle", 190000, asm=True)
    idp = script_named(plan, "oracle_asm_idp.sql")
    statements = sqlplus_statements(idp.text)
    hot = [s for s in statements if "HOT MIRRORHOT" in str(s)]
    cold = [s for s in statements if "COLD MIRRORCOLD" in str(s)]
    assert hot and len(hot) + len(cold) + 1 == len(statements)  # plus one REBALANCE
    assert "+DATA/orcl/datafile/evil.259.1/f0" in [lit for s in hot for lit in literals_of(s)]
    assert "deprecated" in idp.caveat and "11.2" in idp.caveat and "thin" in idp.caveat
    oracle_sql = next((s for s in plan.scripts if s.name == "oracle.sql"), None)
    assert oracle_sql is None or "MOVE DATAFILE '+DATA" not in oracle_sql.text


def test_sfdisk_script_makes_an_aligned_gpt_on_a_real_image(tmp_path: Path) -> None:
    plan = hostile_plan()
    script = next(s for s in plan.scripts if s.language == "sfdisk")
    image = tmp_path / "disk.img"
    with image.open("wb") as handle:
        handle.truncate(20 * 10**9)
    subprocess.run(["sfdisk", "--no-reread", "--no-tell-kernel", "-q", str(image)], input=script.text, text=True,
                   check=True, capture_output=True)
    table = json.loads(subprocess.run(["sfdisk", "--json", str(image)], capture_output=True, text=True,
                                      check=True).stdout)["partitiontable"]
    assert table["label"] == "gpt"
    parts = table["partitions"]
    assert [p.get("name") for p in parts] == [p.label for p in plan.partitions]
    for part, planned in zip(parts, plan.partitions, strict=True):
        assert part["start"] % 2048 == 0 and part["size"] % 2048 == 0
        assert part["start"] * 512 == planned.start_bytes
        assert part["size"] * 512 >= planned.size_bytes
    starts = [p["start"] for p in parts]
    assert starts == sorted(starts) and starts[0] == 2048


def test_oracle_11g_system_undo_and_control_files_move_in_mount_state(tmp_path: Path) -> None:
    specs = [
        AreaSpec("SYSTEM", size_gb=1, read_iops=40, path="/u01/oradata/system"),
        AreaSpec("UNDOTBS1", kind="undo", size_gb=1, read_iops=10, write_iops=10, path="/u01/oradata/undo"),
        AreaSpec("USERS", size_gb=2, read_iops=100, path="/u01/oradata/users"),
        AreaSpec("control", kind="control", size_gb=0.01, read_iops=5, write_iops=5, path="/u01/ctl's", files=2),
    ]
    w = workload(specs, dbms="oracle", version_num=110204, with_layout=False)
    report = advise(AdviceRequest(w, Models(default=ModelPhysics(model(capacity=20 * 10**9))),
                                  PlanOptions(dbms="oracle"),
                    generated_at=AT))
    assert report.plan is not None
    text = script_named(report.plan, "oracle.sql").text
    statements = sqlplus_statements(text)
    lines = text.splitlines()
    # CONTROL_FILES is a list setting: one literal per file, never one literal holding the list
    control = [s for s in statements if "CONTROL_FILES" in str(s)]
    assert len(control) == 1 and [lit.rsplit("/", 1)[1] for lit in literals_of(control[0])] == ["f0", "f1"]
    assert lines.count("SHUTDOWN IMMEDIATE") == 2 and lines.count("STARTUP MOUNT") == 2  # SYSTEM and undo
    flat = " ".join(text.split())
    assert flat.count("ALTER DATABASE OPEN;") == 2
    assert 'ALTER TABLESPACE "USERS" OFFLINE NORMAL;' in flat and 'ALTER TABLESPACE "SYSTEM" OFFLINE' not in flat
    assert "SET CONTROL_FILES = '" in flat and "SCOPE=SPFILE" in flat
    shell = script_named(report.plan, "oracle_move_files.sh").text
    assert subprocess.run(["bash", "-n"], input=shell, text=True).returncode == 0
    copies = [shlex.split(line) for line in shell.splitlines() if line.strip().startswith("cp ")]
    assert [c[2] for c in copies] == ["/u01/ctl's/f0", "/u01/ctl's/f1"]
    # each step moves only its own files: step N is run where oracle.sql pauses (or says) N
    expected: dict[int, list[str]] = {}
    step = 0
    for line in lines:
        if match := re.search(r"sh oracle_move_files.sh (\d+)", line):
            step = int(match.group(1))
            expected[step] = []
        elif line.startswith("ALTER DATABASE RENAME FILE"):
            expected[step].append(line.split("'")[1])
    expected[max(expected)] = ["/u01/ctl's/f0", "/u01/ctl's/f1"]  # the last step copies the control files
    assert sorted(expected) == list(range(1, len(expected) + 1)) and len(expected) == 4
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "mkdir").write_text("#!/bin/sh\nexit 0\n")  # the target directories are not made here
    (fake / "mkdir").chmod(0o755)
    for tool in ("mv", "cp"):
        (fake / tool).write_text(f'#!/bin/sh\nprintf "{tool}\\0%s\\0%s\\n" "$@"\n' if tool == "mv" else
                                 f'#!/bin/sh\nprintf "{tool}\\0%s\\0%s\\n" "$2" "$3"\n')
        (fake / tool).chmod(0o755)
    (tmp_path / "m.sh").write_text(shell)
    for number, sources in expected.items():
        done = subprocess.run(["sh", str(tmp_path / "m.sh"), str(number)], capture_output=True, text=True,
                              env={"PATH": f"{fake}:/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr
        assert [row.split("\0")[1] for row in done.stdout.splitlines()] == sources, (number, done.stdout)
    assert subprocess.run(["sh", str(tmp_path / "m.sh")], capture_output=True).returncode == 2  # no step: usage


def test_awr_report_import_plans_oracle_moves(tmp_path: Path) -> None:
    fixture = Path(__file__).resolve().parents[1] / "oracle" / "fixtures" / "awr_12.1.0.2.html"
    if not fixture.exists():
        pytest.skip("the AWR fixtures of the Oracle tests are not present")
    work = tmp_path / "awr.json"
    collected = run_advisor("collect", "--from-report", str(fixture), "-o", str(work))
    assert collected.returncode == 0, collected.stderr
    # a report states no file sizes: a plan needs --sizes, or --assume-size as here
    done = run_advisor("plan", "--workload", str(work), "--preset", "class-10k", "--disks", "2",
                       "--assume-size", "10G", "--format", "json")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)["plan"]
    wal_disks = {p["disk"] for p in plan["partitions"] if "redo" in p["areas"]}
    assert len(wal_disks) == 1 and all(p["areas"] == ["redo"] for p in plan["partitions"] if p["disk"] in wal_disks)
    sql = next(s["text"] for s in plan["scripts"] if s["name"] == "oracle.sql")
    statements = sqlplus_statements(sql)
    moves = [s for s in statements if "MOVE DATAFILE" in str(s)]
    assert moves and all(literals_of(s)[0].startswith("/u0") for s in moves)
    assert "ADD LOGFILE GROUP" in sql


def test_pg_global_is_planned_with_the_data_directory_not_moved_by_sql() -> None:
    specs = [AreaSpec("orders", size_gb=1, read_iops=300), AreaSpec("pg_global", size_gb=0.01, read_iops=0.5)]
    report = advise(AdviceRequest(workload(specs), Models(default=ModelPhysics(model(capacity=20 * 10**9))),
                                  PlanOptions(),
                    generated_at=AT))
    assert report.plan is not None
    # the shared catalogs are the data directory's area, placed by their IO and moved with it
    target = next(p.target for p in report.plan.placements if p.area == "data directory")
    sql = script_named(report.plan, "postgres.sql").text
    assert f"-- data directory (catalogs, pg_global) -> partition {target}: no SQL moves it" in sql
    assert "move_datadir.sh copies the data directory" in sql
    datadir = script_named(report.plan, "move_datadir.sh").text
    assert subprocess.run(["bash", "-n"], input=datadir, text=True).returncode == 0
    assert not re.search(r"(?i)create tablespace \S*global", sql) and 'TABLESPACE "pg_global"' not in sql
