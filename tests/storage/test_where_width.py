"""`advisor where` at 80 columns keeps a 21-character file name whole, beside short disk names
(``sda``/``sda3``: the table drawn without edge cells) and beside loop devices (``loop5p1``:
the zone range goes on two lines to make the room)."""

from __future__ import annotations

import pytest

from advisor.model import Location

NAME = "1613_fsm_segment_file"
PATH = f"/var/lib/postgresql/18/main/base/16384/{NAME}"


def _location(path: str, disk: str, partition: str) -> Location:
    return Location(path=path, disk=disk, partition=partition, zone_start=0.5953, zone_end=0.5954,
                    zone_mean=0.5953, extents=1, size_bytes=100_000, placement_known=True, reason=None)


def _drawn(location: Location, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> list[str]:
    from advisor.render.locations import Notes, locations_table
    from advisor.render.output import stdout_console

    monkeypatch.setenv("COLUMNS", "80")
    console = stdout_console()
    console.print(locations_table([location], Notes(), width=console.width))
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(("disk", "partition"), [("sda", "sda3"), ("loop5", "loop5p1"), ("nvme0n1", "nvme0n1p12")])
def test_file_name_stays_whole_at_80_columns(disk: str, partition: str, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert len(NAME) == 21
    lines = _drawn(_location(PATH, disk, partition), monkeypatch, capsys)
    row = next(line for line in lines if partition in line)
    assert row.split()[0].endswith(f"/{NAME}") or row.split()[0] == f"…{NAME}", "\n".join(lines)
    assert all(len(line) <= 80 for line in lines)
    assert "97.7 KiB" in row and row.rstrip().endswith("yes")
    zone = "0.5953-0.5954" in row or ("0.5953-" in row and any("0.5954" in line for line in lines[lines.index(row):]))
    assert zone, "\n".join(lines)


def test_the_zone_stays_on_one_line_when_the_name_fits(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    lines = _drawn(_location("/pg/base/5/16385", "loop5", "loop5p1"), monkeypatch, capsys)
    assert any("0.5953-0.5954" in line for line in lines), "\n".join(lines)
