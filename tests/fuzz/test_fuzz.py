"""The fuzz suite: a fixed-seed run inside the test suite (``make fuzz`` runs 20,000+ cases),
and the checks that show the suite can fail."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from advisor.errors import BadInput
from tests.fuzz import mutate, run, seeds, sizes_cases

FIXED_SEED = 20261123
FIXED_CASES = 2000
FIXED_SIZES_CASES = 300


@pytest.mark.slow
def test_fixed_seed_run_keeps_the_property() -> None:
    failures, outcomes = run.run(FIXED_SEED, FIXED_CASES, sizes=FIXED_SIZES_CASES)
    report = "\n".join(f"{case.describe()[:300]}\n  -> {problem}" for case, problem in failures)
    assert not failures, report
    assert sum(outcomes.values()) == FIXED_CASES + FIXED_SIZES_CASES
    assert all(outcomes[f"{kind} ok"] > FIXED_CASES / 10 for kind in ("report", "document", "pair"))
    assert outcomes["sizes ok"] == FIXED_SIZES_CASES


def test_a_case_that_never_ends_is_a_failure_not_a_stuck_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import advisor.sizes.formats as formats

    def forever(path: object, keep: object = None) -> None:
        while True:
            pass

    monkeypatch.setattr(formats, "read_sizes", forever)
    monkeypatch.setattr(run, "CASE_SECONDS", 0.5)
    case = next(sizes_cases.sizes_cases(FIXED_SEED, 1))
    problem = run.run_case(case, tmp_path)
    assert problem is not None and problem.startswith("hang: still running after 0.5 s")


def test_sizes_seeds_leave_the_other_cases_as_they_were() -> None:
    assert mutate.case_from(1072495106).describe().startswith("seed 1072495106 pair")  # the case the test above replays
    case = next(sizes_cases.sizes_cases(5, 1))
    assert case.seed >= mutate.SIZES_SEEDS and mutate.case_from(case.seed).files == case.files


def test_cases_replay_from_their_seed() -> None:
    first = [dataclasses.astuple(c) for c in mutate.cases(5, 30)]
    assert first == [dataclasses.astuple(c) for c in mutate.cases(5, 30)]
    assert all(mutate.case_from(c[3]).files == list(c[1]) for c in first)


@pytest.mark.parametrize("mutation", mutate.TEXT_MUTATIONS, ids=lambda m: m.__name__)
def test_every_mutation_changes_a_report(mutation: object) -> None:
    text = seeds.reports()["statspack_11.2.0.4.txt"].decode()
    assert callable(mutation)
    changed = [mutation(random.Random(n), text)[0] != text for n in range(10)]
    assert sum(changed) >= 5, f"{mutation} rarely changes its input"


def test_checker_flags_impossible_output() -> None:
    from tests.helpers.workloads import sample_workload

    work = sample_workload()
    bad = dataclasses.replace(work, rates=(dataclasses.replace(work.rates[0], read_latency_ms=float("nan")),
                                           dataclasses.replace(work.rates[1], write_iops=-2.0)))
    found = list(run.bad_figures(bad))
    assert found == ["$.rates[0].read_latency_ms is nan", "$.rates[1].write_iops is negative (-2.0)"]
    assert list(run.bad_figures(work)) == []


def test_internal_error_and_undocumented_exit_are_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import advisor.collectors.awr as awr

    case = mutate.Case("report", [("r.txt", seeds.reports()["awr_11.2.0.4.txt"])], seed=1)
    assert run.run_case(case, tmp_path) is None

    def broken(path: object) -> None:
        raise ValueError("Invalid isoformat string")

    monkeypatch.setattr(awr, "read_report", broken)
    problem = run.run_case(dataclasses.replace(case, seed=2), tmp_path)
    assert problem is not None and problem.startswith("internal error ValueError: Invalid isoformat string")

    def refuses_badly(path: object) -> None:
        error = BadInput("two\nlines")
        raise error

    monkeypatch.setattr(awr, "read_report", refuses_badly)
    assert run.run_case(dataclasses.replace(case, seed=3), tmp_path) is None  # one_line() joins the lines
    error = BadInput("x")
    error.exit_code = 1  # type: ignore[assignment]
    assert run._refusal_problem(error) == "exit code 1 for 'x'"


def test_wait_time_that_went_backwards_counts_since_the_reset(tmp_path: Path) -> None:
    # found by the fuzz suite (case seed 1072495106): io_wait_s -39,880 s in an accepted workload. A counter
    # that went backwards is a reset (rates/counters.py): the time since it, never a negative time
    from advisor.rates.workload import diff

    a, b = seeds.snapshot_pairs()["oracle"]
    a = dataclasses.replace(a, wait=dataclasses.replace(a.wait, io_wait_s=40000.0))
    result = diff(a, b)
    assert b.wait.io_wait_s is not None and result.wait.io_wait_s == pytest.approx(b.wait.io_wait_s)
    assert result.wait.io_wait_share == pytest.approx(b.wait.io_wait_s / 200.0)
    assert result.wait.db_time_s == pytest.approx(200.0)
    assert list(run.bad_figures(result)) == []
    assert run.run_case(mutate.case_from(1072495106), tmp_path) is None
