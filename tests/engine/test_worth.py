"""A plan that gains nothing writes no scripts (``0.25 ms -> 0.25 ms (-0 % faster)`` wrote four).

Below ``--min-gain`` (5 % by default) the plan is still shown, with "No change worth making"
and why; ``--scripts DIR`` then writes nothing unless ``--scripts-anyway``. A plan that gains
writes its scripts as before. Areas a plan slows are named with the reason.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import msgspec

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.engine.worth import judge
from advisor.model import save
from tests.helpers.cli import run_advisor
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, models, workload

ALREADY_GOOD = [AreaSpec("hot", size_gb=10, read_iops=90, zone=(0.0, 0.02)),
                AreaSpec("cold", size_gb=100, read_iops=0.5, zone=(0.3, 0.5))]
HOT_INSIDE = [AreaSpec("hot", size_gb=10, read_iops=90, zone=(0.9, 0.92)),
              AreaSpec("warm", size_gb=10, read_iops=30, zone=(0.0, 0.02)),
              AreaSpec("cold", size_gb=100, read_iops=0.5, zone=(0.3, 0.5))]


def _report(specs: list[AreaSpec], tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path, scripts = tmp_path / "w.json", tmp_path / "scripts"
    save(workload(specs), path)
    done = run_advisor("report", "--workload", str(path), "--preset", "class-7200-desktop", "--format", "json",
                       "--scripts", str(scripts), *extra)
    assert done.returncode == 0, done.stderr
    return done, scripts


def test_a_plan_under_the_minimum_gain_is_marked_and_one_above_is_not() -> None:
    flat = advise(AdviceRequest(workload(ALREADY_GOOD), models(), generated_at=AT))
    assert flat.plan is not None and flat.plan.predicted_gain < 0.05
    assert flat.plan.not_worth_it is not None and "--min-gain" in flat.plan.not_worth_it
    gaining = advise(AdviceRequest(workload(HOT_INSIDE), models(), generated_at=AT))
    assert gaining.plan is not None and gaining.plan.predicted_gain >= 0.05 and gaining.plan.not_worth_it is None
    strict = advise(AdviceRequest(workload(HOT_INSIDE), models(),
                                  PlanOptions(min_gain=gaining.plan.predicted_gain + 0.01),
                    generated_at=AT))
    assert strict.plan is not None and strict.plan.not_worth_it is not None


def test_areas_the_plan_slows_are_named_with_the_reason() -> None:
    report = advise(AdviceRequest(workload(HOT_INSIDE), models(), generated_at=AT))
    assert report.plan is not None and not any(n.startswith("Slower") for n in report.plan.notes)
    times = [msgspec.structs.replace(t, after_ms=t.before_ms * 1.5) if t.area == "warm" else t
             for t in report.plan.service_times]
    judged = judge(msgspec.structs.replace(report.plan, service_times=tuple(times)))
    note = next(n for n in judged.notes if n.startswith("Slower after the plan"))
    assert "warm 16.36 -> 24.54 ms" in note and "hot" not in note and "more IO" in note


def test_report_writes_no_scripts_for_a_plan_that_gains_nothing(tmp_path: Path) -> None:
    done, scripts = _report(ALREADY_GOOD, tmp_path)
    assert not scripts.exists()
    assert "no change worth making" in done.stderr and "--scripts-anyway" in done.stderr
    assert json.loads(done.stdout)["plan"]["not_worth_it"].startswith("the predicted gain")
    anyway, scripts = _report(ALREADY_GOOD, tmp_path / "anyway", "--scripts-anyway")
    assert (scripts / "postgres.sql").is_file() and "wrote" in anyway.stderr


def test_report_writes_the_scripts_of_a_plan_that_gains(tmp_path: Path) -> None:
    done, scripts = _report(HOT_INSIDE, tmp_path)
    assert (scripts / "postgres.sql").is_file() and json.loads(done.stdout)["plan"]["not_worth_it"] is None
