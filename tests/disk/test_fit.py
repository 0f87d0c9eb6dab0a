"""The fitter recovers a known drive from the profile the simulator says it would measure."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from advisor.disk import predict
from advisor.disk.fit import fit_profile, fit_zones
from advisor.disk.model import MAX_CYLINDERS
from advisor.disk.presets import get_model
from advisor.disk.synth import synthesize_profile
from advisor.errors import BadInput
from advisor.model.disk import DiskProfile, ZonePoint

KNOWN = {
    "nas": get_model("st4000vn006").with_changes(
        seek_avg_ms=9.5, seek_full_ms=18.0, overhead_ms=0.4, r_od_mb_s_decimal=205.0, rho=2.3
    ),
    "desktop": get_model("class-7200-desktop").with_changes(seek_avg_ms=9.0, overhead_ms=1.2, r_od_mb_s_decimal=150.0),
    "sas": get_model("sas-10k-300gb"),
}


@pytest.fixture(scope="module", params=sorted(KNOWN))
def synthesized(request: pytest.FixtureRequest) -> tuple[str, DiskProfile]:
    return request.param, synthesize_profile(KNOWN[request.param], ios=3000, seed=4)


def test_fit_recovers_zones_and_iops(synthesized: tuple[str, DiskProfile]) -> None:
    name, profile = synthesized
    known = KNOWN[name]
    base = get_model("class-5400-laptop").with_changes(rpm=known.rpm)  # deliberately a different drive
    result = fit_profile(profile, base)
    fitted = result.model
    for x in (0.0, 0.25, 0.5, 0.75, 1.0):
        assert fitted.rate_mb_s_decimal(x) == pytest.approx(known.rate_mb_s_decimal(x), rel=0.02)
    for band in (predict.OUTER, predict.MIDDLE, predict.INNER, (0.0, 1.0)):
        assert predict.mean_service_ms(fitted, band, 8192) == pytest.approx(
            predict.mean_service_ms(known, band, 8192), rel=0.05
        )
    assert result.rms_error < 0.03
    assert {r.name for r in result.residuals} >= {"band outer IOPS", "full stroke IOPS", "cross-surface IOPS",
                                                   "QD16 IOPS", "commits/s"}  # fmt: skip


def test_unknown_rpm_is_found_from_the_measurements(synthesized: tuple[str, DiskProfile]) -> None:
    name, profile = synthesized
    result = fit_profile(dataclasses.replace(profile, rpm=None), report_qd=False)
    assert result.model.rpm == KNOWN[name].rpm


def test_fit_zones_is_exact_on_the_closed_form() -> None:
    model = get_model("hitachi-7k500")
    points = predict.zone_curve(model, 7)
    r_od, rho = fit_zones(points)
    assert r_od == pytest.approx(64.8, rel=1e-6) and rho == pytest.approx(2.09, rel=1e-6)


def test_lying_commit_rate_marks_the_cache_as_acknowledging() -> None:
    profile = synthesize_profile(get_model("class-7200-desktop"), ios=1500)
    result = fit_profile(dataclasses.replace(profile, commit_per_s=3000.0), report_qd=False)
    assert result.model.write_cache == "battery"


def test_profiles_without_figures_are_refused() -> None:
    empty = DiskProfile(target="/dev/x", device=None, size_bytes=10**12, measured_at="now", engine="fio",
                        block_size_bytes=8192)  # fmt: skip
    with pytest.raises(BadInput, match="neither a zone curve"):
        fit_profile(empty)
    with pytest.raises(BadInput, match="two points"):
        fit_profile(dataclasses.replace(empty, zones=(ZonePoint(0.0, 100e6),)))


def test_a_profile_whose_rotation_is_no_drives_is_refused_naming_the_file(tmp_path: Path) -> None:
    """A bench on a busy host once wrote rpm 50100 for an SSD; the report then blamed a preset."""
    from advisor.engine.disk_models import load_models
    from advisor.model.jsonio import dumps

    profile = dataclasses.replace(synthesize_profile(get_model("class-7200-desktop"), ios=300), rpm=50100)
    with pytest.raises(BadInput, match=r"rpm 50100 is outside any drive's 1000\.\.30000"):
        fit_profile(profile, report_qd=False)
    path = tmp_path / "disk.json"
    path.write_text(dumps(profile))
    with pytest.raises(BadInput) as raised:
        load_models([path], None, None)
    message = str(raised.value)
    assert message.startswith(f"{path}: ") and "50100" in message and "class-15k" not in message


def test_a_flat_noisy_zone_curve_fits_a_drive_of_sane_geometry() -> None:
    """A cached scratch file's zone curve (rates ±90 % around one level, as a CI host measured)
    sent the old fit's R_OD to its 1e-6 MB/s floor: a drive of 17.6 billion cylinders whose seek
    table asked for 523 GiB. The fit stays within the measured rates, and the model is a disk's."""
    rates = [1136.6, 1221.3, 1472.8, 182.9, 1460.8, 1746.1, 513.6, 1150.8, 1168.0, 1854.3]
    zones = tuple(ZonePoint(i / 9, r * 1e6) for i, r in enumerate(rates))
    measured = synthesize_profile(KNOWN["desktop"], ios=300, seed=4)
    profile = dataclasses.replace(measured, zones=zones, size_bytes=1 << 30, rpm=None)
    r_od, rho = fit_zones([(z.fraction, z.bytes_per_s / 1e6) for z in zones])
    assert min(rates) < r_od < max(rates) and 1.0 <= rho <= 4.0
    model = fit_profile(profile, report_qd=False).model
    assert 2 <= model.total_cylinders < MAX_CYLINDERS


def test_a_model_of_billions_of_cylinders_is_refused_in_one_line() -> None:
    with pytest.raises(BadInput, match="cylinders, more than any drive"):
        get_model("class-7200-desktop").with_changes(r_od_mb_s_decimal=1e-6, cylinders=None)
