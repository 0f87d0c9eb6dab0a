"""A first user's outputs through the real command line: widths, and output that explains itself.

Snapshots and workloads are real documents written with the model classes (a host layout with
two disks, a PostgreSQL relation under its data directory); every command runs as a user runs
it, piped, so what is checked is what lands in a file or a pager.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path

import pytest

from advisor.model import DiskProfile, Snapshot, ZonePoint, save
from tests.helpers.cli import advisor_argv, advisor_env, run_advisor
from tests.helpers.snapshots import SERVER, file_io, two_disk_layout
from tests.helpers.workloads import sample_workload

DATA_DIRECTORY = "/var/lib/postgresql/18/main"
RELATION = f"{DATA_DIRECTORY}/base/16384/16402"


def _snapshot(taken_at: str, reads: int, wal_writes: int) -> Snapshot:
    server = dataclasses.replace(SERVER, settings={"data_directory": DATA_DIRECTORY})
    files = (file_io("app/16394", RELATION, "data", "pg_default", reads, None),
             file_io("wal", "/fast/a", "wal", "", 10, wal_writes))
    layout = two_disk_layout()
    # no diskstats: the same kernel counters in both snapshots would say no read reached the disk,
    # and the map, as the report's tables, would count the relation's reads as none
    layout = dataclasses.replace(layout, diskstats=(), locations=(*layout.locations, dataclasses.replace(
        layout.locations[2], path=RELATION)))
    return Snapshot(server, taken_at, files, layout=layout)


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("first-use")
    save(_snapshot("2026-01-01T01:00:00+00:00", 100, 100), root / "a.json")
    save(_snapshot("2026-01-01T01:00:10+00:00", 400, 400), root / "b.json")
    save(sample_workload(), root / "w.json")
    return root



def _widest(text: str) -> int:
    return max(len(line.rstrip()) for line in text.splitlines())


def _commands(docs: Path) -> dict[str, list[str]]:
    w, a, b = str(docs / "w.json"), str(docs / "a.json"), str(docs / "b.json")
    return {"report": ["report", "--workload", w], "plan": ["plan", "--workload", w],
            "audit": ["audit", "-s", a, b], "workload": ["workload", a, b],
            "where": ["where", str(docs)], "disk show": ["disk", "show", "class-7200-desktop"],
            "disk presets": ["disk", "presets"]}
    # `inventory` prints a TOML document (its long values cannot wrap): checked in the last test


@pytest.mark.parametrize("command", ["report", "plan", "audit", "workload", "where", "disk show", "disk presets"])
def test_piped_output_takes_columns_and_keeps_typed_names_whole(docs: Path, command: str) -> None:
    done = run_advisor(*_commands(docs)[command], env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    assert _widest(done.stdout) <= 80, f"{command} at COLUMNS=80:\n{done.stdout}"
    wide = run_advisor(*_commands(docs)[command], env={"COLUMNS": None})
    assert wide.returncode == 0 and _widest(wide.stdout) <= 120, "no COLUMNS: the documented 120"
    if command == "disk presets":
        listed = run_advisor("disk", "presets", "--format", "json", env={"COLUMNS": "80"})
        names = [line.split('"')[3] for line in listed.stdout.splitlines() if '"name"' in line]
        assert names and all(f" {name} " in done.stdout for name in names), "preset names are typed: never cut"
    if command == "workload":
        assert " base/16384/16402 " in done.stdout, "the file as it is on disk, whole, at 80 columns"


@pytest.mark.parametrize("command", ["report", "plan", "audit"])
def test_terminal_output_to_a_file_is_one_documented_width(docs: Path, command: str, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    done = run_advisor(*_commands(docs)[command], "-o", str(out), env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert 100 < _widest(text) <= 120, "files are 120 columns whatever COLUMNS says"


def test_disk_map_share_is_computed_over_an_interval(docs: Path) -> None:
    done = run_advisor("audit", "-s", str(docs / "a.json"), str(docs / "b.json"), env={"COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line.startswith(" ") and line.strip()}
    # 30 reads/s of the relation and 30 writes/s of the WAL: halves of the database's 60 IO/s
    assert rows["WAL"][-2:] == ["30.0", "50%"] and rows["tablespace"][-2:] == ["30.0", "50%"], done.stdout
    assert rows["sdb1"][-1] == "-", "no disk IO counted: no partition share made up"
    assert "share: an area's part of the database's IO" in done.stdout


def test_workload_shows_the_real_file_and_why_writes_are_unknown(docs: Path) -> None:
    done = run_advisor("workload", str(docs / "a.json"), str(docs / "b.json"), env={"COLUMNS": "120"})
    assert done.returncode == 0, done.stderr
    assert "base/16384/16402" in done.stdout and "app/16394" not in done.stdout
    assert "PostgreSQL keeps no per-relation write counter" in done.stdout
    assert "no figure for any file shown: r ms, w ms" in done.stdout


def test_every_report_format_states_the_model_and_why(docs: Path) -> None:
    w = str(docs / "w.json")
    default = "disk model: the class-7200-desktop preset, the default: no --disk, --preset or --spec given"
    for fmt in ("terminal", "markdown", "html"):
        done = run_advisor("report", "--workload", w, "-f", fmt, env={"COLUMNS": "200"})
        assert done.returncode == 0 and default in done.stdout, (fmt, done.stdout[:400])
    document = json.loads(run_advisor("report", "--workload", w, "-f", "json").stdout)
    assert "disk model: " + document["model_basis"] == default  # a field of its own, not a warning
    given = run_advisor("plan", "--workload", w, "--preset", "class-10k", env={"COLUMNS": "200"})
    assert "disk model: the class-10k preset (--preset)" in given.stdout
    assert " advisor plan " in given.stdout.splitlines()[0], "plan's box is not titled 'advisor report'"
    audit = run_advisor("audit", "-s", str(docs / "a.json"), str(docs / "b.json"), env={"COLUMNS": "200"})
    assert "disk model: the class-7200-desktop preset for every disk, the default" in audit.stdout


def test_terminal_report_shows_area_sizes(docs: Path) -> None:
    done = run_advisor("report", "--workload", str(docs / "w.json"), env={"COLUMNS": "120"})
    areas = done.stdout[done.stdout.index("Areas"):]
    for name, size in (("orders", "37.3 GiB"), ("archive", "74.5 GiB"), ("WAL", "3.7 GiB")):
        assert any(name in line and size in line for line in areas.splitlines()), areas


def test_a_measured_solid_state_disk_draws_its_measured_curve(docs: Path, tmp_path: Path) -> None:
    work = sample_workload()
    profile = DiskProfile("/var/tmp/scratch", "sda", 500 * 10**9, "2026-01-01T00:00:00+00:00", "builtin", 4096,
                          zones=(ZonePoint(0.0, 2316e6), ZonePoint(0.5, 1800e6), ZonePoint(1.0, 1238e6)),
                          band_iops={"outer": 40000.0}, classification="solid-state",
                          classification_reason="flat zones, no seek")
    save(profile, tmp_path / "sda.json")
    save(work, tmp_path / "w.json")
    done = run_advisor("report", "--workload", str(tmp_path / "w.json"), "--disk", str(tmp_path / "sda.json"),
                    env={"COLUMNS": "120"})
    assert done.returncode == 0, done.stderr
    assert "sda (solid-state /var/tmp/scratch, measured by advisor bench):" in done.stdout
    assert "2316 MB/s" in done.stdout and "1238 MB/s" in done.stdout and "180 MB/s" not in done.stdout
    assert "disk model: sda measured by advisor bench (solid state, no zones)" in done.stdout
    html = run_advisor("report", "--workload", str(tmp_path / "w.json"), "--disk", str(tmp_path / "sda.json"),
                    "-f", "html")
    assert "measured by advisor bench" in html.stdout


def test_inventory_says_which_devices_need_a_model_before_check(tmp_path: Path) -> None:
    done = run_advisor("inventory", "--loop", "-o", str(tmp_path / "host.toml"))
    assert done.returncode == 0, done.stderr
    import tomllib

    devices = tomllib.loads((tmp_path / "host.toml").read_text())["device"]
    unmodelled = [d["name"] for d in devices if not {"profile", "preset", "spec"} & set(d)]
    assert unmodelled, "this host's virtual disk has no model sysfs could name"
    for name in unmodelled:
        assert f"device {name} has no model yet" in done.stderr and "inventory --check" in done.stderr
    checked = run_advisor("inventory", "--check", str(tmp_path / "host.toml"))
    assert checked.returncode == 6 and unmodelled[0] in checked.stderr, "--check refuses what the note said"


VIRTUAL = "virtual disk (virtio) without a model: its LBAs are not positions on a platter"


def _virtual_snapshot(taken_at: str, reads: int) -> Snapshot:
    """One virtio disk ``vda`` whose positions mean nothing, as the host collector reports it."""
    snapshot = _snapshot(taken_at, reads, reads)
    assert snapshot.layout is not None
    layout = snapshot.layout
    vda = dataclasses.replace(layout.devices[0], name="vda", path="/dev/vda", placement_known=False, reason=VIRTUAL,
                              rotational=True, model=None, transport="virtio")
    parts = tuple(dataclasses.replace(p, name=f"vda{p.number}", disk="vda") for p in layout.partitions
                  if p.disk == "sdb")
    # the WAL's directory as a temp directory not created yet is reported: the device's reason and a note
    later = f"{VIRTUAL}; does not exist yet: the partition of /fast is shown"
    locations = tuple(dataclasses.replace(loc, disk="vda", partition=None, placement_known=False,
                                          reason=later if loc.path == "/fast/a" else VIRTUAL)
                      for loc in layout.locations if loc.disk == "sdb")
    layout = dataclasses.replace(layout, devices=(vda,), partitions=parts, locations=locations, diskstats=(),
                                 warnings=(f"vda: {VIRTUAL}",))
    return dataclasses.replace(snapshot, layout=layout)


def test_a_virtual_disk_is_named_as_the_host_names_it_and_its_reason_said_once(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    save(_virtual_snapshot("2026-01-01T01:00:00+00:00", 100), a)
    save(_virtual_snapshot("2026-01-01T01:00:10+00:00", 4000), b)
    report = run_advisor("report", "--snapshot", str(a), str(b), "--force", "--min-gain", "0", env={"COLUMNS": "200"})
    assert report.returncode == 0, report.stderr
    parts = report.stdout[report.stdout.index("Partitions from the outer edge"):].split("Disk map")[0]
    assert "│ vda " in parts and "disk1" not in report.stdout, "today's disk keeps the host's name"
    audit = run_advisor("audit", "-s", str(a), str(b), env={"COLUMNS": "200"})
    assert audit.returncode == 0, audit.stderr
    assert audit.stdout.count("PLACEMENT_UNKNOWN") == 1, "one cause (the virtual disk), one finding"
    said = audit.stdout.replace("\n", " ").count(VIRTUAL)
    assert said == 3, "the map once, the finding's title and evidence"
    assert "WAL: 1 file; does not exist yet: the partition of /fast is shown" in audit.stdout, "its own remark kept"


def test_plan_names_new_disks_and_says_so(docs: Path) -> None:
    done = run_advisor("plan", "--workload", str(docs / "w.json"), env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "disk1: a new disk of the model (today's: sda), not a disk of this host." in done.stdout


def test_piped_output_does_not_take_the_terminal_width_of_stderr(docs: Path) -> None:
    """`advisor report | less` from a 146-column terminal: stderr is that terminal, stdout a pipe."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 146, 0, 0))
    try:
        done = subprocess.run(advisor_argv("report", "--workload", str(docs / "w.json")), stdout=subprocess.PIPE,
                              stderr=follower, stdin=follower, text=True, timeout=120,
                              env=advisor_env({"COLUMNS": None}))
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    assert 100 < _widest(done.stdout) <= 120, "a pipe is the documented 120 columns, not the terminal's 146"
