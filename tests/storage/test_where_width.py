"""`advisor where` at 80 columns keeps a 21-character file name whole beside short disk names."""

from __future__ import annotations

import pytest

from advisor.model import Location

NAME = "1613_fsm_segment_file"


def _location(path: str) -> Location:
    return Location(path=path, disk="sda", partition="sda3", zone_start=0.5953, zone_end=0.5953,
                    zone_mean=0.5953, extents=1, size_bytes=100_000, placement_known=True, reason=None)


def test_file_name_stays_whole_at_80_columns(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli.common import stdout_console
    from advisor.cli.where import edgeless
    from advisor.render.locations import Notes, locations_table

    assert len(NAME) == 21
    monkeypatch.setenv("COLUMNS", "80")
    path = f"/var/lib/postgresql/18/main/base/16384/{NAME}"
    console = stdout_console()
    console.print(edgeless(locations_table([_location(path)], Notes())))
    lines = capsys.readouterr().out.splitlines()
    row = next(line for line in lines if "sda3" in line)
    assert row.split()[0].endswith(f"/{NAME}") or row.split()[0] == f"…{NAME}", row
    assert all(len(line) <= 80 for line in lines)
    assert "0.5953-0.5953" in row and "97.7 KiB" in row and row.rstrip().endswith("yes")
