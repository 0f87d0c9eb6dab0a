"""A saturated disk (kernel busy >= 90 %, or modelled busy for the whole interval) and a model
charging more disk time than the kernel saw the disk busy (advisor.engine.saturation)."""

from __future__ import annotations

import pytest

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.saturation import DISK_TIME_SLACK
from tests.engine.calibration_rows import WAL, mib, on_partitions, stat
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, models

ORDERS = AreaSpec("orders", size_gb=20, read_iops=60, zone=(0.65, 0.70))
ITEMS = AreaSpec("items", size_gb=20, read_iops=20, zone=(0.05, 0.08))


def _report(util: float, orders: AreaSpec = ORDERS):  # type: ignore[no-untyped-def]
    w = on_partitions([orders, ITEMS, WAL], {"orders": "sda3", "items": "sda1", "WAL": "sda1"},
                      [stat("sda3", orders.read_iops, mib(orders.read_iops)), stat("sda1", 30.0, mib(30)),
                       stat("sda", orders.read_iops + 30, mib(orders.read_iops + 30), False, util)])
    return advise(AdviceRequest(w, models(), generated_at=AT))


def test_a_busy_disk_is_called_saturated_and_the_plan_predicts_work_not_shorter_waits() -> None:
    report = _report(0.97)
    assert report.plan is not None and report.plan.predicted_gain > 0
    sat = report.saturation
    assert sat is not None and sat.disks == ("sda",) and sat.util == pytest.approx(0.97)
    # the same mix of work costs less disk time after: that ratio is the work gained per second
    times = report.plan.service_times
    before = sum(t.iops * t.before_ms for t in times)
    after = sum(t.iops * t.after_ms for t in times)
    assert sat.work_gain == pytest.approx(before / after - 1, abs=1e-3) and sat.work_gain > 0
    assert sat.freed_time_to in {t.area for t in times}
    finding = next(f for f in report.findings if f.code == "DISK_SATURATED")
    assert finding.evidence["work_gain"] == sat.work_gain and "more work per second" in finding.action
    assert "MODEL_DOES_NOT_FIT" not in {f.code for f in report.findings}


def test_a_disk_with_room_is_not_saturated() -> None:
    report = _report(0.6, AreaSpec("orders", size_gb=20, read_iops=10, zone=(0.65, 0.70)))
    assert report.plan is not None and report.saturation is None
    assert "DISK_SATURATED" not in {f.code for f in report.findings}


def test_a_model_charging_more_than_twice_the_measured_busy_time_is_refuted_for_that_disk() -> None:
    fits = _report(0.97)
    assert fits.saturation is not None and fits.plan is not None
    busy_fit = fits.saturation.modelled_busy_s_per_s
    assert busy_fit < DISK_TIME_SLACK * 0.97
    refuted = _report(busy_fit / DISK_TIME_SLACK * 0.8)  # the same work on a disk the kernel saw far less busy
    misfit = next(f for f in refuted.findings if f.code == "MODEL_DOES_NOT_FIT")
    assert misfit.evidence["measure"] == "disk time" and misfit.subject == "sda"
    assert float(str(misfit.evidence["ratio"])) == pytest.approx(1 / 0.8, rel=0.02)
    assert refuted.plan is None and not {"HOT_ON_INNER", "CROSS_SURFACE"} & {f.code for f in refuted.findings}


def test_a_model_of_the_drive_run_faster_charges_less_disk_time_and_keeps_the_gain() -> None:
    """The emulated HDD at scale S: the preset's times divided by S fit the kernel's busy time again."""
    from dataclasses import replace

    from advisor.disk.physics import ModelPhysics
    from tests.helpers.workloads import model

    fits = _report(0.97)
    assert fits.saturation is not None and fits.plan is not None
    util = fits.saturation.modelled_busy_s_per_s / DISK_TIME_SLACK * 0.8  # refuted at scale 1 (test above)
    w = on_partitions([ORDERS, ITEMS, WAL], {"orders": "sda3", "items": "sda1", "WAL": "sda1"},
                      [stat("sda3", ORDERS.read_iops, mib(ORDERS.read_iops)), stat("sda1", 30.0, mib(30)),
                       stat("sda", ORDERS.read_iops + 30, mib(ORDERS.read_iops + 30), False, util)])
    scaled = advise(AdviceRequest(w, replace(models(), default=ModelPhysics(model(), time_scale=2.0)), generated_at=AT))
    assert "MODEL_DOES_NOT_FIT" not in {f.code for f in scaled.findings}
    assert scaled.plan is not None
    assert scaled.plan.predicted_gain == pytest.approx(fits.plan.predicted_gain, abs=0.01)


def test_the_work_gain_never_exceeds_what_the_db_time_not_spent_on_io_allows() -> None:
    """A faster disk cannot shorten the database's time that is not IO wait: at the same concurrency
    work per second rises at most 1 / (1 - IO share) times. A tier plan onto flash printed 12763 %
    more work per second where 8 % of DB time was not IO (at most 1150 %)."""
    import dataclasses

    free = _report(0.97)
    assert free.saturation is not None and free.saturation.work_gain is not None
    uncapped = free.saturation.work_gain
    for share, capped in ((0.3, True), (0.999, False)):
        w = on_partitions([ORDERS, ITEMS, WAL], {"orders": "sda3", "items": "sda1", "WAL": "sda1"},
                          [stat("sda3", ORDERS.read_iops, mib(ORDERS.read_iops)), stat("sda1", 30.0, mib(30)),
                           stat("sda", ORDERS.read_iops + 30, mib(ORDERS.read_iops + 30), False, 0.97)])
        w = dataclasses.replace(w, wait=dataclasses.replace(w.wait, io_wait_share=share))
        sat = advise(AdviceRequest(w, models(), generated_at=AT)).saturation
        assert sat is not None and sat.work_gain_bound == pytest.approx(1 / (1 - share) - 1, abs=1e-3)
        if capped:  # 30 % of DB time on IO: at most 43 % more work, however fast the disk gets
            assert sat.work_gain == pytest.approx(sat.work_gain_bound) and sat.work_gain < uncapped
        else:
            assert sat.work_gain == pytest.approx(uncapped)
    report = advise(AdviceRequest(dataclasses.replace(w, wait=dataclasses.replace(w.wait, io_wait_share=0.3)),
                                  models(), generated_at=AT))
    finding = next(f for f in report.findings if f.code == "DISK_SATURATED")
    assert report.saturation is not None and "at most" in finding.action
    assert finding.evidence["work_gain_bound"] == report.saturation.work_gain_bound
