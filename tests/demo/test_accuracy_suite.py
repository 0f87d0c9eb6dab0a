"""The accuracy suite (benchmarks/accuracy.py): its quick variant end to end, and stable advice.

The end-to-end tests run the quick variant of the TPC-B-like workload at queue depth 1 once
(module fixture) on an emulated 7200 rpm disk with a real PostgreSQL 18: bad layout,
collect, run, collect, report, the plan applied with its own in-place stages (the disk is
fully partitioned and in use), run again, and a report on the applied layout. The table
logic is tested on hand-made results, so a target missed is shown as missed whatever the
machine measured.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest
from rich.console import Console

from advisor.cli.demo import emulation_possible
from advisor.disk.emulator.iotrace import IoTrace, TraceRecord
from benchmarks.accuracy_code import changed_note, code_fingerprint
from benchmarks.accuracy_path import tracing_available
from benchmarks.accuracy_table import AGGREGATE_OVERALL_POINTS, AGGREGATE_REFUTED, STABLE_GAIN, compare, render
from benchmarks.accuracy_trace import UNATTRIBUTED, ExtentIndex, attribute, busy_seconds

CAN_EMULATE = emulation_possible()
Test = TypeVar("Test", bound=Callable[..., None])


def on_the_emulated_disk(test: Test) -> Test:
    """The marks of a test that runs the quick workload on the emulated HDD: alone (it times a drive), as root,
    with PostgreSQL, slow; skipped where the emulated HDD cannot run."""
    for mark in (pytest.mark.alone, pytest.mark.root, pytest.mark.pg, pytest.mark.slow,
                 pytest.mark.skipif(CAN_EMULATE is not None, reason=f"emulated HDD impossible here: {CAN_EMULATE}")):
        test = mark(test)
    return test


def _rendered(comparisons: list[dict[str, Any]]) -> str:
    console = Console(record=True, width=200)
    render(comparisons, console)
    return console.export_text()


def _run_quick(name: str, workdir: Path, keep: Path | None = None) -> dict[str, Any]:
    from benchmarks.accuracy import run_one
    from benchmarks.accuracy_path import PathConfig
    from benchmarks.accuracy_workloads import WORKLOADS

    return run_one(WORKLOADS[name].quick(), PathConfig(runs_per_side=1), workdir, lambda _text: None, keep)


@pytest.fixture(scope="module")
def quick_kept(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """The quick workload's result, and the directory its documents were kept in (``--keep``)."""
    from benchmarks.accuracy_workloads import QUICK_WORKLOAD

    kept = tmp_path_factory.mktemp("kept")
    return _run_quick(QUICK_WORKLOAD, tmp_path_factory.mktemp("accuracy"), kept), kept


@pytest.fixture(scope="module")
def quick_result(quick_kept: tuple[dict[str, Any], Path]) -> dict[str, Any]:
    return quick_kept[0]


class FurtherMoveAdvised(AssertionError):
    """The report on the layout the plan produced recommends another move (not a failure of the run)."""


def _assert_no_further_move(result: dict[str, Any]) -> None:
    assert "error" not in result, result.get("error")
    assert result.get("applied_scripts"), result.get("skipped_after")
    again = result["report_after"]
    stable = compare(result)["stable_advice"]
    assert stable is not None
    plan = again["plan"]
    if not (plan is None or plan["not_worth_it"] is not None) or not stable["stable"]:
        raise FurtherMoveAdvised(f"re-advice gain {stable['regain']}: {plan and plan['service_times']}; "
                                 f"areas {again['areas']}")
    assert stable["regain"] is None or stable["regain"] < STABLE_GAIN, stable


@on_the_emulated_disk
def test_quick_workload_measures_and_predicts_every_area(quick_result: dict[str, Any]) -> None:
    assert "error" not in quick_result, quick_result.get("error")
    assert quick_result["leftovers"] == []
    assert quick_result["applied_scripts"], "the plan's scripts were not applied"
    # applied with its own stages (the disk is fully partitioned and in use), rows and files checked
    applied = quick_result["apply"]
    assert applied["path"].startswith("staged in place"), applied
    assert [s["number"] for s in applied["stages"]] == [1, 2, 3] and "stage2-repartition.sh" in applied["scripts"]
    assert applied["tables_checked"] >= 3 and applied["files_checked"] >= 2 and applied["moved_bytes"] > 0, applied
    comparison = compare(quick_result)
    overall = comparison["rows"][0]
    assert overall["area"] == "overall"
    assert math.isfinite(overall["measured"]) and math.isfinite(overall["aggregate"]), overall
    # The bad layout puts the tables at the inner edge and WAL at the outer; the plan packs them at the
    # outer edge, so each transaction must take less time after the move.
    assert overall["measured"] > 0, overall
    assert overall["aggregate"] > 0, overall
    if tracing_available():  # collect --trace: the replay's gain and its self-check are in the table too
        assert overall["replay"] is not None and math.isfinite(overall["replay"]), comparison
        assert comparison["replay_self_check"] and all(c["fits"] for c in comparison["replay_self_check"])
    for name in ("hot", "WAL"):
        row = next(r for r in comparison["rows"] if r["area"] == name)
        assert row["measured"] is not None and math.isfinite(row["measured"]), row
        assert row["aggregate"] is not None and math.isfinite(row["aggregate"]), row
        if tracing_available():  # the block layer's time, traced both sides under the plan's new names
            assert row["block"] is not None and math.isfinite(row["block"]), row
    for run in quick_result["before"] + quick_result["after"]:
        (disk,) = run["disks"].values()
        assert disk["dropped"] == 0
        requests = sum(a["requests"] for a in disk["areas"].values())
        stray = disk["areas"].get(UNATTRIBUTED, {}).get("requests", 0)
        assert stray <= 0.05 * requests, disk["areas"]  # the extents of the areas' files explain the disk's requests
        assert len(run["load_before"]) == 3 and len(run["load_after"]) == 3
    # the round trip the emulated drive takes off each request, and the path the suite measured beyond the block
    # layer: both kept, and what the drive's clock saw of it told to the traced reports (docs/accuracy.md, run 65)
    (calibrated,) = quick_result["emulator_path"].values()
    assert calibrated is None or (calibrated["inbound"][0] >= 0 and calibrated["outbound"][0] >= 0), calibrated
    if tracing_available():
        measured = quick_result["host_path"]["report"]
        assert measured["requests"] > 0 and measured["to_drive_ms"] > 0 and measured["told"] is True, measured
        if calibrated is not None:  # the calibration taken off the same requests, each way
            assert measured["calibrated_to_ms"] >= calibrated["inbound"][0] * 1000 - 1e-4, measured
            assert measured["calibrated_from_ms"] >= calibrated["outbound"][0] * 1000 - 1e-4, measured
        seen = max(0.0, measured["to_drive_ms"] + measured["from_drive_ms"] - measured.get("calibrated_to_ms", 0.0)
                   - measured.get("calibrated_from_ms", 0.0))
        told = [c for c in quick_result["commands"]
                if "workload-before-traced.json" in c and c.startswith("advisor report")]
        assert told and all(f"--path-ms {seen:.4f}" in c for c in told), (told, seen)
    # The table shows the error in points and whether the target was met: a miss is never hidden.
    text = _rendered([comparison])
    line = next(line for line in text.splitlines() if " overall " in line)
    assert f"{(overall['aggregate'] - overall['measured']) * 100:+.1f}" in line, line
    off = abs(overall["aggregate"] - overall["measured"]) * 100
    expected = "met" if off <= AGGREGATE_OVERALL_POINTS else ("not confident" if comparison["doubt"] else "MISSED")
    assert overall["aggregate_status"] == expected and expected in line, (line, off)


@on_the_emulated_disk
def test_advice_on_the_layout_the_plan_produced_recommends_no_further_move(quick_result: dict[str, Any]) -> None:
    _assert_no_further_move(quick_result)


def _result(measured_after_ms: float, predicted_gain: float, codes: tuple[str, ...] = (),
            replay: dict[str, Any] | None = None) -> dict[str, Any]:
    """A hand-made workload result: one group 10 ms before, *measured_after_ms* after."""
    def run(ms: float, area_ms: float) -> dict[str, Any]:
        return {"seconds": 5.0, "groups": {"g": {"time_ms": ms, "transactions": 500}},
                "load_before": [2.0, 2.0, 2.0], "load_after": [3.0, 3.0, 3.0],
                "disks": {"loop9": {"busy_share": 0.9, "areas": {"hot": {"requests": 10, "mean_service_ms": area_ms}}}}}
    plan = {"predicted_gain": predicted_gain, "predicted_before_ms": 10.0, "not_worth_it": None,
            "service_times": [{"area": "hot", "before_ms": 10.0, "after_ms": 10.0 * (1 - predicted_gain)}]}
    return {"workload": "w", "shape": "s", "queue_depth": 1, "runs_per_side": 2, "seconds_per_run": 5,
            "groups": {"g": {"primary": True}}, "areas": [{"name": "hot"}],
            "before": [run(10.0, 8.0), run(10.0, 8.0)], "after": [run(measured_after_ms, 6.0)] * 2,
            "report": {"plan": plan, "findings": [{"code": c} for c in codes], "replay": [replay] if replay else []},
            "report_after": {"plan": {"predicted_gain": 0.08, "not_worth_it": None}}}


@on_the_emulated_disk
def test_a_kept_run_rejudged_by_the_code_that_made_it_gives_its_own_table(
        quick_kept: tuple[dict[str, Any], Path]) -> None:
    """``--rejudge``: the kept traced workloads re-reported give the run's own predictions (the same code)."""
    from benchmarks.accuracy_path import PathConfig
    from benchmarks.accuracy_rejudge import rejudged

    result, kept = quick_kept
    assert "error" not in result, result.get("error")
    said: list[str] = []
    again = rejudged({"config": {"preset": PathConfig().preset}, "results": [result]}, kept, said.append)
    assert said == []  # every report made, the same plan
    before, after = compare(result)["rows"], compare(again[0])["rows"]
    assert [row["area"] for row in before] == [row["area"] for row in after]
    predicted = [(row["replay"], row["aggregate"]) for row in before]
    assert any(replay is not None for replay, _ in predicted)
    for (replay, aggregate), row in zip(predicted, after, strict=True):
        assert row["aggregate"] == aggregate and (replay is None) == (row["replay"] is None)
        assert replay is None or math.isclose(row["replay"], replay, abs_tol=1e-9), (replay, row["replay"])


def test_a_prediction_far_from_the_measurement_is_flagged_missed() -> None:
    comparison = compare(_result(measured_after_ms=8.0, predicted_gain=0.50))  # measured 20 %, predicted 50 %
    overall = comparison["rows"][0]
    assert overall["measured"] == pytest.approx(0.20) and overall["aggregate_status"] == "MISSED"
    text = _rendered([comparison])
    assert "MISSED" in text and "+30.0" in text
    assert "NOT STABLE" in text  # the re-advice wants another 8 %
    assert "replay targets not assessed" in text and "replay " not in text.splitlines()[2]


def test_a_plan_applied_though_not_advised_is_judged_like_any_prediction_and_says_so() -> None:
    """A report that advises no move predicted a small gain: the suite applies the plan anyway and measures it,
    and the table judges that prediction and says why the move was made."""
    result = _result(measured_after_ms=9.8, predicted_gain=0.01)
    reason = "the predicted gain, 1.0%, is under the 5% a migration must bring (--min-gain)"
    result["report"]["plan"]["not_worth_it"] = reason
    result["applied_anyway"] = reason
    comparison = compare(result)
    overall = comparison["rows"][0]
    assert overall["measured"] == pytest.approx(0.02) and overall["aggregate_status"] == "met"
    assert comparison["applied_anyway"] == reason
    text = " ".join(_rendered([comparison]).split())
    assert "applied though the report advises no move, to measure its prediction" in text
    far = _result(measured_after_ms=7.0, predicted_gain=0.01)  # measured 30 % where 1 % was predicted
    far["applied_anyway"] = reason
    assert compare(far)["rows"][0]["aggregate_status"] == "MISSED"


def test_a_report_that_doubts_its_model_is_not_confident_rather_than_missed() -> None:
    comparison = compare(_result(measured_after_ms=8.0, predicted_gain=0.50, codes=("MODEL_DOES_NOT_FIT",)))
    assert comparison["rows"][0]["aggregate_status"] == "not confident"
    assert "MODEL_DOES_NOT_FIT" in _rendered([comparison])


def _hot_replay(planned_ms: float, hot_measured_ms: float, hot_planned_ms: float, fits: bool) -> dict[str, Any]:
    """A replayed disk of one area, ``hot``: 8 ms a request today."""
    return {"disk": "loop9", "requests": 100, "replayed_ms": 8.0, "planned_ms": planned_ms, "fits": fits,
            "deviation": 0.02 if fits else 0.3, "predicted_gain": round(1.0 - planned_ms / 8.0, 4),
            "areas": [{"area": "hot", "requests": 100, "measured_ms": hot_measured_ms, "replayed_ms": 8.0,
                       "planned_ms": hot_planned_ms}]}


def _overall_and_hot(comparison: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return comparison["rows"][0], next(row for row in comparison["rows"] if row["area"] == "hot")


def test_a_queued_disks_replay_counts_with_its_busy_time_gain() -> None:
    # a disk with a queue: the report's gain is its busy time's (10 %), not 1 - planned / replayed per request (22 %)
    replay = {**_hot_replay(6.24, 7.9, 6.0, True), "basis": "busy time", "predicted_gain": 0.10,
              "busy_deviation": -0.04, "request_gain": 0.22}
    overall, _ = _overall_and_hot(compare(_result(measured_after_ms=8.0, predicted_gain=0.21, replay=replay)))
    assert overall["replay"] == pytest.approx(0.10)


def test_the_replay_column_appears_when_a_report_carries_a_replay() -> None:
    comparison = compare(_result(measured_after_ms=8.0, predicted_gain=0.21, replay=_hot_replay(6.24, 7.9, 6.0, True)))
    overall, hot = _overall_and_hot(comparison)
    assert overall["replay"] == pytest.approx(0.22) and overall["measured"] == pytest.approx(0.20)
    assert overall["replay_status"] == "met" and overall["aggregate_status"] == "met"
    assert hot["measured"] == pytest.approx(0.25) and hot["replay"] == pytest.approx(0.25)
    assert "replay" in _rendered([comparison]).splitlines()[2]


def test_an_area_that_missed_its_self_check_is_predicted_from_what_it_measured() -> None:
    # the hot area measured 12 ms a request where the replay gave it 8: the report starts its gain from the 12
    replay = _hot_replay(6.24, 12.0, 6.0, True)
    replay["areas"][0].update(fits=False, deviation=-0.33, predicted_gain=0.5, gain_from="measured")
    _, hot = _overall_and_hot(compare(_result(measured_after_ms=8.0, predicted_gain=0.21, replay=replay)))
    assert hot["replay"] == pytest.approx(0.5)  # 1 - 6 / 12, where from the replayed 8 ms it would be 0.25
    # 25 points from the measured 25 %: the report said the area missed its self-check, so not a MISSED target
    assert hot["replay_status"] == "not confident"


def test_a_workload_of_several_databases_shows_each_databases_measured_and_replayed_gain() -> None:
    result = _result(measured_after_ms=8.0, predicted_gain=0.21, replay={
        **_hot_replay(6.24, 7.9, 6.0, True),
        "issuers": [{"issuer": "shop", "kind": "database", "requests": 60, "replayed_ms": 10.0, "planned_ms": 7.0},
                    {"issuer": "shop", "kind": "database", "requests": 0, "replayed_ms": 0.0, "planned_ms": 0.0},
                    {"issuer": "checkpointer", "kind": "server process", "requests": 40, "replayed_ms": 5.0,
                     "planned_ms": 5.0}]})
    for side, ms in (("before", 20.0), ("after", 19.0)):
        for run in result[side]:
            run["groups"]["h"] = {"time_ms": ms, "transactions": 10}
    result["groups"] = {"g": {"primary": True, "database": "shop"}, "h": {"primary": True, "database": "books"}}
    rows = {row["area"]: row for row in compare(result)["rows"]}
    shop, books = rows["g (database shop)"], rows["h (database books)"]
    assert shop["measured"] == pytest.approx(0.20) and shop["replay"] == pytest.approx(0.30)
    assert books["measured"] == pytest.approx(0.05) and books["replay"] is None  # no issuer row for it
    assert shop["replay_status"] == "" and "checkpointer" not in " ".join(rows)  # no target; databases only
    # a database the report marked as waiting on another's commits: its figure is labelled no prediction
    result["report"]["replay"][0]["issuers"][0]["barrier_free"] = False
    waiting = {row["area"]: row for row in compare(result)["rows"]}["g (database shop)"]
    assert waiting["replay_status"] == "no prediction" and waiting["replay"] == pytest.approx(0.30)
    one = _result(measured_after_ms=8.0, predicted_gain=0.21, replay={
        **_hot_replay(6.24, 7.9, 6.0, True),
        "issuers": [{"issuer": "shop", "kind": "database", "requests": 60, "replayed_ms": 10.0, "planned_ms": 7.0}]})
    one["groups"] = {"g": {"primary": True, "database": "shop"}}
    assert not any("database" in row["area"] for row in compare(one)["rows"])  # one database, no rates: no row
    # one database with rates: the work per second its sessions gain, beside the measured gain per transaction
    one["report"]["replay"][0]["issuers"][0].update(replayed_rate=5.0, planned_rate=8.0, rate_predicted=True)
    work = {row["area"]: row for row in compare(one)["rows"]}["rate (database shop)"]
    assert work["replay"] == pytest.approx(0.375) and work["measured"] == pytest.approx(0.20)
    assert work["replay_status"] == ""
    one["report"]["replay"][0]["issuers"][0]["rate_predicted"] = False
    assert {row["area"]: row for row in compare(one)["rows"]}["rate (database shop)"][
        "replay_status"] == "no prediction"
    # with its sessions' rates the figure is the time its sessions take for the same work (5/s -> 8/s: 37.5 %),
    # whatever its time per request: what a faster layout gives a saturated disk's clients is more work
    result["report"]["replay"][0]["issuers"][0].update(replayed_rate=5.0, planned_rate=8.0)
    rated = {row["area"]: row for row in compare(result)["rows"]}["g (database shop)"]
    assert rated["replay"] == pytest.approx(0.375) and rated["replay_status"] == ""  # barrier_free: per request only
    result["report"]["replay"][0]["issuers"][0]["rate_predicted"] = False  # a loop on its disk does not close
    open_loop = {row["area"]: row for row in compare(result)["rows"]}["g (database shop)"]
    assert open_loop["replay_status"] == "no prediction"
    # a shared disk whose report gives only the direction: judged against the measured gain's sign (+20 %)
    result["report"]["replay"][0]["issuers"][0]["rate_direction"] = "more"
    assert {row["area"]: row for row in compare(result)["rows"]}["g (database shop)"][
        "replay_status"] == "direction met"
    result["report"]["replay"][0]["issuers"][0]["rate_direction"] = "less"
    assert {row["area"]: row for row in compare(result)["rows"]}["g (database shop)"][
        "replay_status"] == "direction MISSED"


def test_each_databases_time_per_transaction_is_split_into_requests_per_transaction_and_session_time() -> None:
    # two databases on loop9: shop 10 ms a transaction before, 12.5 after (-25 %); its sessions sent 100 requests
    # over 2 x 500 transactions before (0.1) and 132 over 2 x 550 after (0.12: +20 %, its pages evicted), at 40 then
    # 36 requests per session-second (time per request -11.1 %); the replay gave 40 -> 38/s (-5.3 %): +5.8 points
    def issuer(name: str, requests: int, measured: float, replayed: float, planned: float) -> dict[str, Any]:
        return {"issuer": name, "kind": "database", "requests": requests, "measured_rate": measured,
                "replayed_rate": replayed, "planned_rate": planned, "rate_predicted": False}
    result = _result(measured_after_ms=12.5, predicted_gain=0.21, replay={
        **_hot_replay(6.24, 7.9, 6.0, True), "issuers": [issuer("shop", 100, 40.0, 40.0, 38.0),
                                                         issuer("books", 50, 10.0, 11.0, 16.0)]})
    for side, books_ms, books_tx in (("before", 20.0, 25), ("after", 14.0, 40)):
        result[side] = [{**run, "groups": {**run["groups"], "h": {"time_ms": books_ms, "transactions": books_tx}}}
                        for run in result[side]]
    result["after"] = [{**run, "groups": {**run["groups"], "g": {"time_ms": 12.5, "transactions": 550}}}
                       for run in result["after"]]
    result["report_after"]["replay"] = [{"disk": "loop9", "issuers": [issuer("shop", 132, 36.0, 37.0, 37.0),
                                                                       issuer("books", 80, 16.0, 16.0, 16.0)]}]
    result["groups"] = {"g": {"primary": True, "database": "shop"}, "h": {"primary": True, "database": "books"}}
    comparison = compare(result)
    shop, books = comparison["databases"]
    assert shop["time_per_transaction"] == pytest.approx(-0.25)
    assert (shop["requests_before"], shop["requests_after"]) == (pytest.approx(0.1), pytest.approx(0.12))
    assert shop["session_time"] == pytest.approx(1.0 - 40.0 / 36.0) and shop["replay"] == pytest.approx(-2.0 / 38.0)
    assert books["session_time"] == pytest.approx(1.0 - 10.0 / 16.0) and books["replay"] == pytest.approx(1 - 11 / 16)
    text = _rendered([comparison])
    assert "0.1 -> 0.12 (+20.0 %)" in text and "+5.8" in text and "no prediction" in text
    # the report gave the books' rate a direction (its phases all beyond the tolerance): the split says which
    result["report"]["replay"][0]["issuers"][1]["rate_direction"] = "more"
    assert "direction: more" in _rendered([compare(result)])
    # one database: no split (its rate row is in the main table)
    result["groups"] = {"g": {"primary": True, "database": "shop"}, "h": {"primary": False, "database": "books"}}
    assert compare(result)["databases"] == []


def test_a_database_on_two_disks_takes_its_rate_from_the_disk_with_most_of_its_requests() -> None:
    # its sessions are the same on both disks: 60 requests on loop9 (5/s -> 8/s planned), 20 on loop8, whose
    # requests wait for loop9's and keep their traced pace there (4/s -> 4/s): the figure is loop9's, 37.5 %
    issuer = {"issuer": "shop", "kind": "database", "replayed_ms": 10.0, "planned_ms": 7.0, "rate_predicted": True}
    main = {**_hot_replay(6.24, 7.9, 6.0, True),
            "issuers": [{**issuer, "requests": 60, "replayed_rate": 5.0, "planned_rate": 8.0}]}
    other = {**_hot_replay(7.9, 7.9, 7.9, True), "disk": "loop8",
             "issuers": [{**issuer, "requests": 20, "replayed_rate": 4.0, "planned_rate": 4.0}]}
    result = _result(measured_after_ms=8.0, predicted_gain=0.21, replay=main)
    result["report"]["replay"].append(other)
    result["groups"] = {"g": {"primary": True, "database": "shop"}}
    rate = {row["area"]: row for row in compare(result)["rows"]}["rate (database shop)"]
    assert rate["replay"] == pytest.approx(0.375)


def test_an_aggregate_model_a_fitting_replay_overruled_is_not_confident() -> None:
    # the aggregate model's disk-time refutation overruled: its figure beside the replay's is a comparison
    replay = {"disk": "loop9", "requests": 100, "replayed_ms": 8.0, "planned_ms": 6.4, "deviation": 0.02, "fits": True,
              "predicted_gain": 0.2, "aggregate_refuted": True, "areas": []}
    comparison = compare(_result(measured_after_ms=8.0, predicted_gain=0.50, replay=replay))
    overall = comparison["rows"][0]
    assert overall["aggregate_status"] == "not confident" and overall["replay_status"] == "met"
    assert AGGREGATE_REFUTED in comparison["doubt"]
    upheld = {**replay, "aggregate_refuted": False}
    without = compare(_result(measured_after_ms=8.0, predicted_gain=0.50, replay=upheld))
    assert without["rows"][0]["aggregate_status"] == "MISSED"


def test_a_replay_whose_self_check_failed_is_not_judged_as_a_prediction() -> None:
    replay = _hot_replay(4.0, 6.0, 4.0, fits=False)
    overall, hot = _overall_and_hot(compare(_result(measured_after_ms=8.0, predicted_gain=0.21, replay=replay)))
    assert overall["replay"] == pytest.approx(0.5) and overall["replay_status"] == "not confident"
    assert hot["replay_status"] == "not confident"
    # the disk fits, one area does not: that area alone is not judged
    fitting = {**replay, "fits": True, "areas": [{**replay["areas"][0], "fits": False}]}
    overall, hot = _overall_and_hot(compare(_result(measured_after_ms=8.0, predicted_gain=0.21, replay=fitting)))
    assert overall["replay_status"] == "MISSED" and hot["replay_status"] == "not confident"
    # the area fits its own self-check, but its gain varies with the platter's phase: no prediction either
    unsteady = {**replay, "fits": True, "areas": [{**replay["areas"][0], "fits": True, "steady": False}]}
    _, hot = _overall_and_hot(compare(_result(measured_after_ms=8.0, predicted_gain=0.21, replay=unsteady)))
    assert hot["replay_status"] == "not confident"
    steady = {**replay, "fits": True, "areas": [{**replay["areas"][0], "fits": True, "steady": True}]}
    _, hot = _overall_and_hot(compare(_result(measured_after_ms=8.0, predicted_gain=0.21, replay=steady)))
    assert hot["replay_status"] == "MISSED"  # judged: replayed 50 %, measured 25 %
    # steady, but waiting on other databases' commits that a faster layout changes: no prediction either
    waits = {**replay, "fits": True, "areas": [{**replay["areas"][0], "fits": True, "steady": True,
                                                "barrier_free": False, "behind_commits": 0.3}]}
    _, hot = _overall_and_hot(compare(_result(measured_after_ms=8.0, predicted_gain=0.21, replay=waits)))
    assert hot["replay_status"] == "not confident"


def test_an_areas_replayed_gain_is_judged_against_the_block_layers_time_both_traces_measured() -> None:
    # the drive's own time fell 25 % (8 -> 6 ms); the block layer's, what the replay predicts (issue to completion,
    # the wait behind a cache flush the loop driver runs first included), 10 % (12 -> 10.8 ms), as the traced
    # reports of both sides measured it; the plan renamed the area's tablespace (hot1_hot)
    replay = {**_hot_replay(7.2, 12.0, 7.2, True)}
    replay["areas"] = [{**replay["areas"][0], "replayed_ms": 12.0, "planned_ms": 11.4}]  # replayed 5 %
    result = _result(measured_after_ms=8.0, predicted_gain=0.21, replay=replay)
    result["report_after"]["replay"] = [{"disk": "loop9", "areas": [
        {"area": "hot1_hot", "requests": 60, "measured_ms": 10.0}, {"area": "hot1_hot", "requests": 0,
                                                                       "measured_ms": 99.0},
        {"area": "hotter", "requests": 40, "measured_ms": 99.0}]},
        {"disk": "loop8", "refused": "trace of loop8: no replay", "areas": [
            {"area": "hot", "requests": 50, "measured_ms": 99.0}]},
        {"disk": "loop7", "areas": [{"area": "hot", "requests": 20, "measured_ms": 14.0}]}]
    _, hot = _overall_and_hot(compare(result))
    # (60 x 10 + 20 x 14) / 80 = 11 ms after, 12 before: 8.3 % at the block layer
    assert hot["measured"] == pytest.approx(0.25) and hot["block"] == pytest.approx(1 - 11.0 / 12.0)
    assert hot["replay_status"] == "met"  # 5 % for 8.3 %; against the drive's 25 % it would miss
    text = _rendered([compare(result)])
    assert "at block" in text and "-3.3" in text
    # no trace after the move: the drive's figure judges, as before
    del result["report_after"]["replay"]
    _, hot = _overall_and_hot(compare(result))
    assert hot["block"] is None and hot["replay_status"] == "MISSED"


def test_requests_are_attributed_by_extent_then_by_a_temp_areas_partition() -> None:
    index = ExtentIndex(starts=[0, 8192], ends=[8192, 16384], areas=["a", "b"], residual=[(1 << 20, 2 << 20, "tmp")])
    assert [index.area_of(o) for o in (0, 8191, 8192, 16384, 1 << 20, 3 << 20)] == \
        ["a", "a", "b", UNATTRIBUTED, "tmp", UNATTRIBUTED]
    trace = IoTrace((TraceRecord("read", 0, 8192, 1.0, 1.010, 0.005),
                     TraceRecord("write", 8192, 8192, 1.0, 1.007, 0.004),
                     TraceRecord("flush", 0, 0, 2.0, 2.001, 0.001),
                     TraceRecord("flush", 0, 0, 0.5, 0.501, 0.001)))
    figures = attribute(trace, index, seconds=2.0, time_scale=2.0)
    assert figures["areas"]["a"]["mean_service_ms"] == pytest.approx(10.0)  # the drive's time: 5 ms real at 2x
    # the flush after b's write is b's (a commit: write and flush); the one before any write is on its own
    assert figures["areas"]["b"]["flushes"] == 1 and figures["areas"]["b"]["mean_service_ms"] == pytest.approx(10.0)
    assert figures["areas"]["flush"]["requests"] == 1
    assert busy_seconds(trace) == pytest.approx(0.009)  # [1.003, 1.007] and [1.005, 1.010] overlap; then 1 ms twice


def test_the_code_fingerprint_follows_every_code_file_and_a_linked_directory(tmp_path: Path) -> None:
    package, linked = tmp_path / "pkg", tmp_path / "elsewhere"
    package.mkdir()
    linked.mkdir()
    (package / "a.py").write_text("x = 1\n")
    (package / "notes.txt").write_text("not code\n")
    (linked / "q.sql").write_text("SELECT 1\n")
    (package / "collectors").symlink_to(linked)
    first = code_fingerprint((package,))
    (package / "notes.txt").write_text("still not code\n")
    assert code_fingerprint((package,)) == first and changed_note(first, first) is None
    (linked / "q.sql").write_text("SELECT 2\n")  # a query behind the link changed: other code
    second = code_fingerprint((package,))
    assert second != first
    note = changed_note(first, second)
    assert note is not None and first in note and second in note and "clone" in note


def test_a_request_moves_to_where_its_files_byte_lies_after_the_move() -> None:
    """``--as-applied``: a byte is found through the after file's extents even where the file system laid them
    out of file order (ext4 did so on run 33's temp sorts), and two files keep apart."""
    import numpy as np

    from advisor.trace.codec import ExtentTable
    from benchmarks.accuracy_as_applied import applied_offsets

    before = ExtentTable(file=np.array([0, 1]), file_offset=np.array([0, 0]), disk_byte=np.array([1000, 2000]),
                         length=np.array([400, 100]))
    # after: file 0's second half lies before its first half; file 1 far away
    after = ExtentTable(file=np.array([0, 0, 1]), file_offset=np.array([200, 0, 0]),
                        disk_byte=np.array([100, 300, 9000]), length=np.array([200, 200, 100]))
    moved, mapped, shifted = applied_offsets(np.array([1000, 1250, 2050, 50]), before, after, {0: 0, 1: 1})
    assert moved.tolist() == [300, 150, 9050, 50]
    assert mapped.tolist() == [True, True, True, False] and not shifted.any()
    alone, _, _ = applied_offsets(np.array([1000, 2050]), before, after, {0: 0})  # file 1 not paired: stays
    assert alone.tolist() == [300, 2050]


@on_the_emulated_disk
def test_the_before_trace_replayed_where_the_files_went_splits_the_error(
        quick_kept: tuple[dict[str, Any], Path]) -> None:
    """The before trace on its own layout gains nothing; on the layout the move made, its requests are found
    through the after side's extents and it gains about what the plan's replay said (ext4 placed the files
    where the planned replay puts them: 0.1-3.1 points apart on runs 31-33)."""
    from benchmarks.accuracy_as_applied import PRESET, as_applied, decomposed

    result, kept = quick_kept
    before, after = kept / result["workload"] / "workload-before-traced.json", \
        kept / result["workload"] / "workload-after-traced.json"
    assert before.is_file() and after.is_file()
    same = as_applied(before, before, PRESET)
    assert same and all(d.gain == 0.0 and set(d.areas.values()) == {0.0} for d in same)
    rows = decomposed({"config": {}, "results": [result]}, kept)
    overall = next(row for row in rows if row["area"] == "overall")
    assert result["as_applied"]["overall"] == overall["as_applied"]  # the run kept what the kept traces give
    assert overall["mapped"] >= 0.95
    assert overall["as_applied"] is not None and overall["as_applied"] > 0.05
    assert abs(overall["as_applied"] - overall["planned"]) < 0.1, overall


def test_a_workload_whose_runs_spread_widely_measures_more_of_them() -> None:
    # the temp sorts' measured gain spread 8.8 points over the suite's runs at two a side: they take six, at least
    from benchmarks.accuracy_path import PathConfig, runs_of
    from benchmarks.accuracy_workloads import TEMP_SORTS_RUNS, WORKLOADS

    assert runs_of(WORKLOADS["temp-sorts"], PathConfig()) == TEMP_SORTS_RUNS == 6
    assert runs_of(WORKLOADS["temp-sorts"], PathConfig(runs_per_side=8)) == 8  # --runs above it wins
    assert runs_of(WORKLOADS["temp-sorts"].quick(), PathConfig(runs_per_side=1)) == 1  # make test's stays short
    assert runs_of(WORKLOADS["tpcb-qd1"], PathConfig()) == 2


def test_an_areas_runs_spread_is_shown_beside_its_measured_gain() -> None:
    # an area whose drive time differs from run to run (a scan served in one of two states) says how much
    result = _result(measured_after_ms=8.0, predicted_gain=0.2)
    result["before"][1]["disks"]["loop9"]["areas"]["hot"]["mean_service_ms"] = 12.0  # runs at 8 and 12 ms
    hot = next(row for row in compare(result)["rows"] if row["area"] == "hot")
    assert hot["noise"] == pytest.approx((0.4 + 0.0) / 2)  # (12 - 8) / 10 before, 0 after (6 and 6 ms)
    assert hot["measured"] == pytest.approx(1 - 6.0 / 10.0)
    alone = _result(measured_after_ms=8.0, predicted_gain=0.2)
    alone["before"], alone["after"] = alone["before"][:1], alone["after"][:1]  # one run a side: no spread to show
    assert next(row for row in compare(alone)["rows"] if row["area"] == "hot")["noise"] is None


def test_the_path_to_the_drive_pairs_each_drive_record_with_its_block_request() -> None:
    from advisor.disk.emulator.calibrate import PathOverhead
    from advisor.trace.codec import FLUSH, READ, WRITE, Requests
    from benchmarks.accuracy_host_path import DriveRecord, host_path, path_arguments, pooled

    def requests(rows: list[tuple[float, float, int, int]]) -> Requests:  # (issue, service, sector, op)
        return Requests(np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
                        np.array([r[2] for r in rows]), np.array([0 if r[3] == FLUSH else 16 for r in rows]),
                        np.array([r[3] for r in rows]), np.zeros(len(rows), dtype=np.int64),
                        np.zeros(len(rows), dtype=bool))

    traced = requests([(1.000, 0.010, 64, WRITE),   # a WAL page written...
                       (1.100, 0.010, 64, WRITE),   # ...and written again: its record pairs with this one
                       (1.200, 0.030, 0, FLUSH),    # a flush in flight from 1.200 to 1.230
                       (1.210, 0.030, 128, READ)])  # held by the loop driver behind it: not the path's
    records = [DriveRecord("write", 32768, 8192, 1.1004, 1.1099),
               DriveRecord("read", 65536, 8192, 1.2301, 1.2398),
               DriveRecord("read", 999 * 512, 8192, 1.5, 1.51),  # nothing traced there: no pair
               DriveRecord("write", 32768, 8192, 1.05, 1.06)]  # the trace missed its request: the page's first
    # write had completed at 1.010, before this one reached the drive, so the two are no pair
    path = host_path(traced, records)
    assert path is not None and path.requests == 1
    assert path.to_drive_ms == pytest.approx(0.4) and path.from_drive_ms == pytest.approx(0.1)
    assert path_arguments(path) == ["--path-ms", "0.5000"] and path_arguments(None) == []
    both = pooled([path, type(path)(1.0, 0.0, 3)])
    assert both is not None and both.to_drive_ms == pytest.approx((0.4 + 3 * 1.0) / 4) and both.requests == 4
    assert host_path(traced, [records[2]]) is None and host_path(traced, [records[3]]) is None
    # the emulated drive took its own calibrated round trip off the same request: its clock saw only the rest
    calibrated = host_path(traced, records, PathOverhead((0.0001, 1e-8), (0.00005, 1e-7)))
    assert calibrated is not None and calibrated.both_ms == pytest.approx(0.5)
    # a write: its data on the way in
    assert calibrated.calibrated_to_ms == pytest.approx(0.1 + 8192e-8 * 1000, abs=1e-4)
    assert calibrated.calibrated_from_ms == pytest.approx(0.05)  # ... and nothing to carry back
    assert calibrated.seen_ms == pytest.approx(0.5 - 0.1 - 0.08192 - 0.05, abs=1e-4)
    assert path_arguments(calibrated) == ["--path-ms", f"{calibrated.seen_ms:.4f}"]
    over = host_path(traced, records, PathOverhead((0.001, 0.0), (0.0, 0.0)))  # more than the path: none seen
    assert over is not None and over.seen_ms == 0.0


def test_a_rejudged_run_takes_the_path_its_report_was_told_else_measures_it_from_what_it_kept(tmp_path: Path) -> None:
    from benchmarks.accuracy_host_path import result_path, told_path

    measured = {"host_path": {"report": {"to_drive_ms": 0.3, "from_drive_ms": 0.1, "requests": 10, "told": False},
                              "report_after": {"to_drive_ms": 0.3, "from_drive_ms": 0.1, "requests": 10,
                                               "told": True}}}
    path = result_path(measured, "report", tmp_path, "before")
    assert path is not None and path.both_ms == pytest.approx(0.4)
    assert result_path({}, "report", tmp_path, "before") is None  # an old run that kept nothing: no path
    calibrated = {"host_path": {"report": dict(measured["host_path"]["report"], calibrated_to_ms=0.12,
                                               calibrated_from_ms=0.08)},
                  "emulator_path": {"loop9": {"inbound": [0.00012, 0.0], "outbound": [0.00008, 0.0]}}}
    path = result_path(calibrated, "report", tmp_path, "before")
    assert path is not None and path.seen_ms == pytest.approx(0.2)  # told what the drive's clock saw
    # a run that kept its drives' calibrations but measured the path without them: measured again, from what it
    # kept (here nothing)
    assert result_path(dict(measured, emulator_path=calibrated["emulator_path"]), "report", tmp_path, "before") is None
    # measured on every run, told to the reports only where the run said so (--tell-path)
    assert not told_path(measured, "report") and told_path(measured, "report_after") and not told_path({}, "report")
