# ruff: noqa: E501  (the option tables are the help texts, one per line)
"""`plan` and `report` declare their shared options in one place and list the same options as before.

The tables below are the two commands' options (flags, help text, default) as they were when each
command declared its own (plus ``--in-place``/``--spare``, ``--time-scale`` and ``--path-ms``, declared once for both): moving a
declaration must change none of them.
"""

from __future__ import annotations

import pytest
import typer

from tests.helpers.cli import run_advisor

PLAN_OPTIONS = [
    (['--workload'], 'Workload file to place.', 'None'),
    (['--disk'], 'Measured disk profile of the target disk.', 'None'),
    (['--preset'], 'Drive preset of the target disks.', 'None'),
    (['--spec'], 'Drive spec file (drive.toml) of the target disks.', 'None'),
    (['--time-scale'], 'The disk is `advisor disk emulate --scale S`: every time the preset or spec models is divided by S (gains unchanged; measured profiles are not scaled).', '1.0'),
    (['--path-ms'], "Milliseconds a request spends between the block layer and the drive, both ways, beyond the drive's own service: next to none on a SATA or SAS adapter (the default, 0), more behind a loop device, a virtual or network disk, or on a host whose CPUs are all busy. The replay of a traced workload serves its requests behind it; the aggregate model does not use it.", '0.0'),
    (['--disks'], 'Number of identical target disks (actuators).', '1'),
    (['--headroom'], 'Growth room per area (0.3 = 30 %).', '0.3'),
    (['--dbms'], "Scripts for postgres or oracle (default: the workload's).", 'None'),
    (['--mount-root'], 'Where the new partitions will mount.', "'/srv/advisor'"),
    (['--device'], 'Device name written into the sfdisk script.', "'/dev/sdX'"),
    (['--force'], 'Plan even when the database is not IO bound.', 'False'),
    (['--format', '-f'], 'Output format.', "<OutputFormat.terminal: 'terminal'>"),
    (['--output', '-o'], 'Write the plan report here (atomically).', 'None'),
    (['--scripts'], 'Write the scripts into this directory.', 'None'),
    (['--scripts-anyway'], 'With --scripts: write them even when the plan gains under --min-gain.', 'False'),
    (['--min-gain'], "Predicted gain, in %, below which a plan is 'no change worth making' and writes no scripts.", '5.0'),
    (['--target'], 'Inventory of the target machine: a tiered plan.', 'None'),
    (['--knapsack'], 'With --target: lay out the IO-density knapsack baseline instead of the searched plan (to compare).', 'False'),
    (['--verbose', '-v'], 'List every warning (terminal: one line per kind).', 'False'),
    (['--sizes'], 'Sizes file: the output of `advisor sql show sizes` (SQL*Plus CSV or grid, psql CSV or aligned), for workloads without file sizes (AWR/Statspack imports).', 'None'),
    (['--assume-size'], "Plan areas of unknown size as this size each (e.g. 10G): by IO alone; every output marks those sizes 'assumed'.", 'None'),
    (['--in-place'], 'Stage the plan on the disk that holds the data today: steps through the disk\'s free space, or through --spare (scripts per step).', 'False'),
    (['--spare'], 'With --in-place: a directory on another disk, or an empty device (/dev/sdX), with room for everything the disk holds for the database (else: the disk\'s own free space).', 'None'),
    (['--cache'], "kept (default): plan by the reads a disk served today (reads a cache served are shown, not planned); lost: the new server will not have today's cache, plan by every read reported.", "'kept'"),
]

REPORT_OPTIONS = [
    (['--snapshot'], 'Snapshot files A B ... (offline).', 'None'),
    (['more'], 'Further snapshot files after --snapshot A.', 'None'),
    (['--workload'], 'A workload file (offline).', 'None'),
    (['--dsn'], 'Sample this database live (libpq DSN / Oracle connect).', 'None'),
    (['--dbms'], 'Database collector for --dsn (see `advisor collectors`).', "'postgres'"),
    (['--interval'], 'Seconds between the two live samples.', '300.0'),
    (['--trace'], "With --dsn (root, Linux): also record the block layer's requests over the interval and replay them (docs/report.md).", 'False'),
    (['--disk'], 'Measured disk profile(s) from `advisor bench`.', 'None'),
    (['--preset'], 'Drive preset for disks without a profile.', 'None'),
    (['--spec'], 'Drive spec file (drive.toml) instead of a preset.', 'None'),
    (['--time-scale'], 'The disk is `advisor disk emulate --scale S`: every time the preset or spec models is divided by S (gains unchanged; measured profiles are not scaled).', '1.0'),
    (['--path-ms'], "Milliseconds a request spends between the block layer and the drive, both ways, beyond the drive's own service: next to none on a SATA or SAS adapter (the default, 0), more behind a loop device, a virtual or network disk, or on a host whose CPUs are all busy. The replay of a traced workload serves its requests behind it; the aggregate model does not use it.", '0.0'),
    (['--headroom'], 'Growth room per area in the plan.', '0.3'),
    (['--force'], 'Plan even when the database is not IO bound.', 'False'),
    (['--mount-root'], 'Where the planned partitions mount.', "'/srv/advisor'"),
    (['--allow-reset'], 'Warn instead of refusing on counter resets.', 'False'),
    (['--format', '-f'], 'Output format.', "<OutputFormat.terminal: 'terminal'>"),
    (['--output', '-o'], 'Write the report here (atomically).', 'None'),
    (['--scripts'], "Write the plan's scripts into this directory.", 'None'),
    (['--scripts-anyway'], 'With --scripts: write them even when the plan gains under --min-gain.', 'False'),
    (['--min-gain'], "Predicted gain, in %, below which a plan is 'no change worth making' and writes no scripts.", '5.0'),
    (['--target'], 'Inventory of the target machine: a tiered plan.', 'None'),
    (['--knapsack'], 'With --target: lay out the IO-density knapsack baseline instead of the searched plan (to compare).', 'False'),
    (['--verbose', '-v'], 'List every warning (terminal: one line per kind).', 'False'),
    (['--strict'], "Refuse (exit 6) a workload imported from a report that falls short of the report's own totals.", 'False'),
    (['--sizes'], 'Sizes file: the output of `advisor sql show sizes` (SQL*Plus CSV or grid, psql CSV or aligned), for workloads without file sizes (AWR/Statspack imports).', 'None'),
    (['--assume-size'], "Plan areas of unknown size as this size each (e.g. 10G): by IO alone; every output marks those sizes 'assumed'.", 'None'),
    (['--in-place'], 'Stage the plan on the disk that holds the data today: steps through the disk\'s free space, or through --spare (scripts per step).', 'False'),
    (['--spare'], 'With --in-place: a directory on another disk, or an empty device (/dev/sdX), with room for everything the disk holds for the database (else: the disk\'s own free space).', 'None'),
    (['--cache'], "kept (default): plan by the reads a disk served today (reads a cache served are shown, not planned); lost: the new server will not have today's cache, plan by every read reported.", "'kept'"),
]


def _options(command: str) -> list[tuple[list[str], str | None, str]]:
    from advisor.cli import app

    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return [(list(p.opts), getattr(p, "help", None), repr(p.default)) for p in group.commands[command].params]


@pytest.mark.parametrize(("command", "expected"), [("plan", PLAN_OPTIONS), ("report", REPORT_OPTIONS)])
def test_options_are_those_of_before(command: str, expected: list[tuple[list[str], str, str]]) -> None:
    assert _options(command) == [(flags, help_text, default) for flags, help_text, default in expected]


def test_shared_options_come_from_one_module() -> None:
    """Every option the two commands share is declared in advisor/cli/plan_options.py, not in either command."""
    import inspect

    from advisor.cli import plan, report

    shared = {"--force", "--format", "--scripts-anyway", "--min-gain", "--target", "--knapsack", "--verbose",
              "--disk", "--preset", "--spec", "--headroom", "--mount-root", "--output", "--scripts"}
    for module in (plan, report):
        source = inspect.getsource(module)
        assert not [flag for flag in shared if f'"{flag}"' in source], module.__name__


@pytest.mark.parametrize("command", ["plan", "report"])
def test_help_lists_every_option(command: str) -> None:
    done = run_advisor(command, "--help", env={"COLUMNS": "200"}, timeout=60)
    assert done.returncode == 0, done.stderr
    expected = PLAN_OPTIONS if command == "plan" else REPORT_OPTIONS
    for flags, _help, _default in expected:
        assert flags[0] in done.stdout or flags[0] == "more", flags


@pytest.mark.parametrize(("args", "words"), [(["--headroom", "11"], "--headroom': 11.0 is not in the range 0.0<=x<=10.0"),
                                                 (["--min-gain", "101"], "--min-gain': 101.0 is not in the range 0.0<=x<=100.0")])
def test_shared_ranges_hold(args: list[str], words: str) -> None:
    for command in ("plan", "report"):
        done = run_advisor(command, "--workload", "w.json", *args, timeout=60)
        assert done.returncode == 2 and words in done.stderr, done.stderr


