"""The preset catalogue, users' drive.toml files and the TOML round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.disk.presets import get_model, get_spec, list_presets
from advisor.disk.spec import MODEL_FIELDS, DriveTable, resolve, to_toml
from advisor.errors import BadInput

REQUIRED = {
    "class-5400-laptop", "class-5400-nas", "class-7200-desktop", "class-10k", "class-15k",
    "maxtor-200gb-7200-firewire", "wd-my-passport-wdbbep0010brd", "hitachi-hdt725032vla380", "wd1600bevt",
    "hgst-travelstar-7k1000", "st9250410as", "st31000333as", "st4000vn006", "sas-10k-300gb",
    "st1000lm014-mechanical", "wd2002fyps", "cheetah-9lp", "atlas-10k", "barracuda-st32171w",
    "hitachi-7k500", "seagate-savvio-10k3", "wd-velociraptor-1tb",
}  # fmt: skip


def test_catalogue_has_the_seed_disksim_and_class_drives() -> None:
    names = {p.name for p in list_presets()}
    assert REQUIRED <= names


def test_every_number_of_every_preset_has_a_source() -> None:
    for info in list_presets():
        model = get_model(info.name)
        for field in MODEL_FIELDS:
            if getattr(model, field) in (None, ()):
                continue  # optional and not used by this drive
            source = info.sources.get(field, "")
            assert source and source != "given in the spec without a source", (info.name, field)
            assert "built-in default" not in source, (info.name, field)


def test_inherited_fields_say_where_they_come_from() -> None:
    spec = get_spec("st31000333as")
    assert spec.drive_class == "class-7200-desktop"
    assert spec.sources["seek_avg_ms"].startswith("class-7200-desktop default:")
    assert spec.sources["capacity_bytes"] == "model number: 1 TB"
    assert spec.model.seek_avg_ms == get_model("class-7200-desktop").seek_avg_ms


def test_unknown_preset_lists_close_names() -> None:
    with pytest.raises(BadInput) as info:
        get_model("st4000vn")
    assert "st4000vn006" in info.value.one_line()


def test_user_spec_file_with_a_preset_base(tmp_path: Path) -> None:
    path = tmp_path / "drive.toml"
    path.write_text(
        '[drive.db-disk]\nbase = "class-7200-desktop"\ncapacity_bytes = 2_000_000_000_000\nr_od_mb_s = 210.0\n'
        '[drive.db-disk.sources]\nr_od_mb_s = "advisor bench"\n'
    )
    spec = get_spec(str(path))
    assert spec.model.capacity_bytes == 2 * 10**12 and spec.model.rpm == 7200
    assert spec.sources["r_od_mb_s_decimal"] == "advisor bench"
    assert spec.sources["rpm"].startswith("class-7200-desktop default:")


OLD_KEYS_SPEC = """\
[drive.old-disk]
base = "class-7200-desktop"
capacity_bytes = 2_000_000_000_000
r_od_mb_s = 210.0

[drive.old-disk.sources]
r_od_mb_s = "advisor bench zones, 2026-05-02"
"""
"""A spec file as releases before the rename wrote it: ``r_od_mb_s``, the drive's 10^6 bytes per second."""


def test_a_spec_file_with_the_earlier_key_names_reads_as_the_current_ones(tmp_path: Path) -> None:
    """Users' files keep working: ``r_od_mb_s`` is ``r_od_mb_s_decimal``, same figure, same source."""
    old, current = tmp_path / "old.toml", tmp_path / "current.toml"
    old.write_text(OLD_KEYS_SPEC)
    current.write_text(OLD_KEYS_SPEC.replace("r_od_mb_s =", "r_od_mb_s_decimal ="))
    assert get_spec(str(old)) == get_spec(str(current))
    assert get_spec(str(old)).model.r_od_mb_s_decimal == 210.0
    assert get_spec(str(old)).sources["r_od_mb_s_decimal"] == "advisor bench zones, 2026-05-02"
    assert "r_od_mb_s_decimal = 210.0" in to_toml(get_spec(str(old)).model)  # written back under the current name


def test_a_spec_file_giving_both_names_of_one_figure_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "both.toml"
    path.write_text(OLD_KEYS_SPEC.replace("r_od_mb_s = 210.0", "r_od_mb_s = 210.0\nr_od_mb_s_decimal = 200.0"))
    with pytest.raises(BadInput, match="drive.old-disk: r_od_mb_s and r_od_mb_s_decimal name the same figure"):
        get_spec(str(path))
    path.write_text(OLD_KEYS_SPEC.replace('r_od_mb_s = "advisor', 'r_od_mb_s = "x"\nr_od_mb_s_decimal = "advisor'))
    with pytest.raises(BadInput, match=r"drive.old-disk.sources: r_od_mb_s and r_od_mb_s_decimal name the same"):
        get_spec(str(path))


def test_a_wrong_value_under_the_earlier_key_is_named_as_written(tmp_path: Path) -> None:
    path = tmp_path / "old.toml"
    path.write_text(OLD_KEYS_SPEC.replace("r_od_mb_s = 210.0", 'r_od_mb_s = "fast"'))
    with pytest.raises(BadInput, match=r"drive.old-disk.r_od_mb_s: expected a number, found 'fast' - at "
                                       r"`\$.drive.old-disk.r_od_mb_s`"):
        get_spec(str(path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[drive.x]\nrpm = 7200\n", "lacks capacity_bytes"),
        ('[drive.x]\nbase = "class-10k"\nrpm = "fast"\n',
         "drive.x.rpm: expected a number, found 'fast' - at `\\$.drive.x.rpm`"),
        ('[drive.x]\nbase = "class-10k"\nrpm = nan\n', "drive.x.rpm: expected a number, found nan"),
        ('[drive.x]\nbase = "class-10k"\nheads = 2.5\n', "drive.x.heads: expected a whole number, found 2.5"),
        ('[drive.x]\nbase = "class-10k"\nwrite_cache = "on"\n', "expected \"off\", \"volatile\" or \"battery\""),
        ('drive = {x = 3}\n', "drive.x must be a table - at `\\$.drive.x`"),
        ('[drive.x]\nbase = "class-10k"\nspeed = 3\n', "unknown keys: speed"),
        ('[drive.x]\nbase = "clas-10k"\n', "did you mean class-10k"),
        ('[drive.x]\nbase = "y"\n[drive.y]\nbase = "x"\n', "defines 2 drives"),
        ("[drive.x\n", "not valid TOML drive spec"),
        ('[drive.x]\nbase = "class-10k"\nzones = [[0, 1, 2]]\n', "pairs"),
    ],
)
def test_bad_spec_files_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "drive.toml"
    path.write_text(text)
    with pytest.raises(BadInput, match=message):
        get_model(str(path))


def test_missing_spec_file() -> None:
    with pytest.raises(BadInput, match="no such file"):
        get_model("/nonexistent/drive.toml")


@pytest.mark.parametrize("name", ["cheetah-9lp", "st4000vn006", "hitachi-7k500"])
def test_toml_round_trip(tmp_path: Path, name: str) -> None:
    spec = get_spec(name)
    path = tmp_path / "copy.toml"
    path.write_text(to_toml(spec.model, spec.description, spec.sources))
    again = get_spec(str(path))
    assert again.model == spec.model
    assert again.sources["rpm"] == spec.sources["rpm"]


def test_base_cycles_are_refused() -> None:
    tables = {"a": DriveTable(base="b"), "b": DriveTable(base="a")}
    with pytest.raises(BadInput, match="cycle"):
        resolve("a", tables, {}, "test")


def test_drive_tables_take_every_model_field() -> None:
    """The decoded drive table has a field for each DiskModel field, so no model field is unreachable from TOML."""
    assert set(MODEL_FIELDS) <= set(DriveTable.__struct_fields__)
    assert set(DriveTable.__struct_fields__) - set(MODEL_FIELDS) == {"base", "description", "drive_class", "sources",
                                                                    "earlier_r_od_mb_s_decimal"}  # r_od_mb_s


def test_a_spec_written_with_whole_floats_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "drive.toml"
    path.write_text('[drive.x]\nbase = "class-10k"\ncapacity_bytes = 2e12\ncylinders = 0\n')
    model = get_model(str(path))
    assert model.capacity_bytes == 2 * 10**12 and isinstance(model.capacity_bytes, int) and model.cylinders is None
