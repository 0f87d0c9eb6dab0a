"""`advisor disk ...`: JSON shapes, fitted TOML that loads back, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from advisor.cli import app
from advisor.disk.presets import get_model
from advisor.disk.synth import synthesize_profile
from advisor.model import save

runner = CliRunner()


def _json(*args: str) -> object:
    result = runner.invoke(app, ["disk", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_presets_json() -> None:
    data = _json("presets")
    assert isinstance(data, list)
    entry = next(d for d in data if d["name"] == "st4000vn006")
    assert entry["class"] == "class-5400-nas" and "IronWolf" in entry["description"]
    assert entry["sources"]["seek_avg_ms"].startswith("ST4000VN006 model")


def test_show_json() -> None:
    data = _json("show", "hitachi-7k500")
    assert isinstance(data, dict)
    assert data["model"]["r_od_mb_s_decimal"] == 64.8 and data["model"]["rpm"] == 7200
    assert data["zone_curve"][0]["mb_s_decimal"] == pytest.approx(64.8)
    assert data["zone_curve"][-1]["mb_s_decimal"] == pytest.approx(
        31.0, rel=1e-3
    )
    assert data["seek_curve"][-1]["ms"] == pytest.approx(17.0, rel=1e-3)
    tests = {p["test"]: p for p in data["predictions"]}
    assert tests["1 % band outer, QD1"]["iops"] > 1.8 * tests["full stroke, QD1"]["iops"]
    assert tests["full stroke, QD16"]["iops"] > tests["full stroke, QD1"]["iops"]


def test_simulate_json_with_two_streams() -> None:
    data = _json("simulate", "--preset", "maxtor-200gb-7200-firewire", "--band", "0:0.01",
                 "--stream", "randread:0.99:1", "--ios", "3000", "--bs", "8k", "--seed", "3")  # fmt: skip
    assert isinstance(data, dict)
    for key in ("iops", "mb_s_decimal", "mean_ms", "p50_ms", "p99_ms", "per_stream"):
        assert key in data
    assert len(data["per_stream"]) == 2 and data["per_stream"][1]["band"] == [0.99, 1.0]
    assert 1000 / data["iops"] == pytest.approx(16.4, rel=0.1)  # the seed's alternating figure


def test_fit_writes_a_loadable_spec(tmp_path: Path) -> None:
    profile = synthesize_profile(get_model("sas-10k-300gb"), ios=1500)
    disk_json = tmp_path / "disk.json"
    save(profile, disk_json)
    out = tmp_path / "fitted.toml"
    result = runner.invoke(app, ["disk", "fit", str(disk_json), "-o", str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rms_error"] < 0.05 and any(r["name"] == "full stroke IOPS" for r in data["residuals"])
    model = get_model(str(out))
    assert model.r_od_mb_s_decimal == pytest.approx(130.0, rel=0.02)
    shown = runner.invoke(app, ["disk", "show", "--spec", str(out), "--format", "json"])
    assert shown.exit_code == 0 and json.loads(shown.stdout)["model"]["rpm"] == 10000


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "no-such-drive"], "unknown drive preset"),
        (["simulate", "--preset", "class-10k", "--band", "0.5:0.2"], "must satisfy"),
        (["simulate", "--preset", "class-10k", "--bs", "4x"], "cannot read size"),
        (["simulate", "--preset", "class-10k", "--pattern", "zigzag"], "unknown pattern"),
        (["simulate", "--preset", "class-10k", "--stream", "read:0"], "PATTERN:LO:HI"),
        (["show"], "exactly one drive"),
        (["fit", "/nonexistent/disk.json"], "disk.json"),
    ],
)
def test_bad_input_is_one_line_exit_6(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["disk", *args])
    assert result.exit_code == 6, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("advisor: error:") and message in lines[0]


def test_corrupt_profile_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "disk.json"
    bad.write_text('{"document": "disk-profile", "format_version": 1')
    result = runner.invoke(app, ["disk", "fit", str(bad)])
    assert result.exit_code == 6 and "Traceback" not in result.output


def test_unsupported_format_is_refused_before_writing(tmp_path: Path) -> None:
    out = tmp_path / "fitted.toml"
    result = runner.invoke(app, ["disk", "fit", str(tmp_path / "disk.json"), "-o", str(out), "--format", "html"])
    assert result.exit_code == 6 and "--format html" in result.stderr
    assert not out.exists()


def test_presets_table_at_80_columns_keeps_every_name_whole() -> None:
    """A preset name is typed back (--preset NAME): at 80 columns it was cut to 'wd-my-passport-wdbbep0010b…'."""
    from advisor.disk.presets import list_presets

    result = runner.invoke(app, ["disk", "presets"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    first_cells = {line.split("│")[0].strip() for line in lines if "│" in line}
    assert {info.name for info in list_presets()} <= first_cells
