"""The staged migration's refusals and its stages, from a synthetic workload on a located disk."""

from __future__ import annotations

import subprocess

import pytest

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.errors import BadInput
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, models, workload

SPECS = [AreaSpec("hot", size_gb=2, read_iops=300, zone=(0.7, 0.75)),
         AreaSpec("WAL", kind="wal", size_gb=1, write_iops=50, random_share=None, zone=(0.0, 0.02)),
         AreaSpec("cold", size_gb=5, read_iops=1, zone=(0.3, 0.4))]


def _advise(**options: object) -> object:
    return advise(AdviceRequest(workload(SPECS), models(), PlanOptions(force=True, in_place=True, **options),  # type: ignore[arg-type]
                  generated_at=AT))


def test_without_a_spare_areas_on_no_known_partition_are_refused() -> None:
    # the snapshot located the files on sda1, but its layout lists no partition: nothing to stage from
    with pytest.raises(BadInput, match="no partition of sda is known to hold"):
        _advise()


def test_a_spare_known_too_small_is_refused_no_order_fits() -> None:
    with pytest.raises(BadInput, match=r"has 1\.00 GiB free, the disk.s areas need 8\.\d\d GiB: no order of moves"):
        _advise(spare="/spare", spare_free_bytes=1 << 30)


def test_oracle_is_refused_with_the_path_to_take() -> None:
    with pytest.raises(BadInput, match="MOVE DATAFILE"):
        _advise(spare="/spare", dbms="oracle")


def test_the_stages_name_their_scripts_space_and_time() -> None:
    report = _advise(spare="/spare", spare_free_bytes=100 << 30)
    plan = report.plan  # type: ignore[attr-defined]
    assert [s.number for s in plan.stages] == [1, 2, 3]
    first, second, third = plan.stages
    assert first.scripts == ("stage1-check.sh", "stage1-evacuate.sql", "stage1-move_wal.sh")
    assert first.needs_where == "/spare" and first.needs_bytes >= 8 << 30
    assert first.offline_s is not None and first.offline_s > 0  # 8 GiB at the inner edge's rate
    assert "stage2-repartition.sh" in second.scripts and second.offline_s is None
    assert "postgres.sql" in third.scripts and "move_wal.sh" in third.scripts
    names = {s.name for s in plan.scripts}
    assert {"stage1-check.sh", "stage1-evacuate.sql", "stage2-repartition.sh"} <= names
    for script in plan.scripts:
        if script.language == "shell":
            assert subprocess.run(["sh", "-n"], input=script.text, text=True).returncode == 0, script.name
    evacuate = next(s.text for s in plan.scripts if s.name == "stage1-evacuate.sql")
    assert 'RENAME TO "hot"' in evacuate or "RENAME TO hot" in evacuate


def test_a_spare_device_is_made_a_file_system_first_and_stage_one_writes_there() -> None:
    report = _advise(spare="/dev/sdz", spare_free_bytes=100 << 30, mount_root="/srv/advisor")
    plan = report.plan  # type: ignore[attr-defined]
    first = plan.stages[0]
    assert first.scripts[:2] == ("stage1-spare.sh", "stage1-check.sh") and first.needs_where == "/srv/advisor/spare"
    spare = next(s.text for s in plan.scripts if s.name == "stage1-spare.sh")
    assert "SPARE_DEVICE=/dev/sdz" in spare and "lazy_itable_init=0" in spare
    assert spare.index("held=") < spare.index("mkfs.ext4")  # refused before anything is written
    check = next(s.text for s in plan.scripts if s.name == "stage1-check.sh")
    assert "SPARE=/srv/advisor/spare" in check
