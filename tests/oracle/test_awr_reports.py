"""AWR HTML/text and Statspack reports, generated from known figures, read back into workloads."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.collectors.awr import ReportCollector, detect, read_report
from advisor.model import FileRate, Workload, load_workload, save
from tests.oracle import report_truth as T

FIXTURES = Path(__file__).parent / "fixtures"
PER_FILE = ["awr_11.2.0.3_rac.html", "awr_11.2.0.4.html", "awr_12.1.0.2.html", "awr_12.2.0.1_cdb.html",
            "awr_11.2.0.4.txt", "statspack_11.2.0.4.txt"]
AWR = [name for name in PER_FILE if name.startswith("awr")] + ["awr_18c_nodata.html", "awr_19c_nodata.html"]


def workload(name: str) -> Workload:
    return read_report(FIXTURES / name)


def by_path(result: Workload) -> dict[str, FileRate]:
    return {r.path.rsplit("/", 1)[-1]: r for r in result.rates if r.path}


def test_fixtures_match_the_generator() -> None:
    from tests.oracle.fixtures.generate_reports import render_all

    rendered = render_all()
    assert sorted(rendered) == sorted(p.name for p in FIXTURES.iterdir() if p.suffix in (".html", ".txt"))
    for name, text in rendered.items():
        assert (FIXTURES / name).read_bytes().decode("utf-8") == text, f"{name} is stale: regenerate"


@pytest.mark.parametrize("name", PER_FILE)
def test_per_file_figures_equal_the_known_numbers(name: str) -> None:
    result = workload(name)
    assert result.interval_s == T.INTERVAL_S
    assert result.started_at == "2026-11-20T10:00:00" and result.ended_at == "2026-11-20T11:00:00"
    assert (result.server.dbms, result.server.identity, result.server.name) == ("oracle", T.DBID, T.DB_NAME)
    assert result.server.instance == T.INSTANCE and result.server.started_at == "2026-11-01T08:00:00"
    assert result.server.host == T.HOST
    rates = by_path(result)
    has_single_column = "11.2.0.3" not in name and "statspack" not in name
    for truth in T.FILES:
        rate = rates[truth.path.rsplit("/", 1)[-1]]
        assert rate.kind == truth.kind and rate.tablespace == truth.tablespace
        assert rate.read_iops == pytest.approx(truth.reads_s)
        assert rate.write_iops == pytest.approx(truth.writes_s)
        assert rate.mean_read_kb == pytest.approx(truth.av_blks_rd * T.BLOCK_SIZE / 1024)
        assert rate.read_mb_s == pytest.approx(truth.reads_s * truth.av_blks_rd * T.BLOCK_SIZE / 2**20)
        if not ("12.1" in name and truth.path == T.IMPLAUSIBLE_FILE):
            assert rate.read_latency_ms == pytest.approx(truth.av_rd_ms, abs=0.051)
        if has_single_column:
            assert rate.random_share == pytest.approx(truth.single_share)
        else:  # only an all-single-block mean can be split honestly
            assert rate.random_share == (1.0 if truth.av_blks_rd == 1.0 else None)
    assert result.wait.db_time_s == T.DB_TIME_S
    expected_share = T.IO_WAIT_SHARE if "statspack" not in name else 4036.0 / T.DB_TIME_S
    assert result.wait.io_wait_share == pytest.approx(expected_share)


@pytest.mark.parametrize("name", AWR)
def test_redo_archive_and_control_come_from_iostat_by_filetype(name: str) -> None:
    rates = {r.kind: r for r in workload(name).rates if r.file_id.endswith(("Log File", "Archive Log", "Control File"))}
    for filetype, (rr, _rmb, wr, wmb, small, large, kind) in T.FILETYPES.items():
        if kind in ("data", "temp"):
            continue
        rate = rates[kind]
        assert rate.name == filetype and rate.read_iops == pytest.approx(rr) and rate.write_iops == pytest.approx(wr)
        assert rate.write_mb_s == pytest.approx(wmb, abs=0.051)
        assert rate.read_latency_ms == pytest.approx(small or large or None)
    assert rates["redo"].write_latency_ms == pytest.approx(0.5)  # log file parallel write 90 s / 180,000


def test_statspack_redo_from_lgwr_and_histogram() -> None:
    from advisor.collectors.awr.statspack import read_statspack

    path = FIXTURES / "statspack_11.2.0.4.txt"
    data = read_statspack(path.read_text(), str(path))
    assert data.histogram == {path: pytest.approx(counts) for path, counts in T.HISTOGRAM.items()}
    assert set(data.histogram) == {f.path for f in T.FILES if f.kind != "temp"}
    redo = [r for r in workload(path.name).rates if r.kind == "redo"]
    assert len(redo) == 1 and redo[0].write_iops == pytest.approx(50.0) and redo[0].write_latency_ms == 0.5
    assert not workload(path.name).warnings


def test_11204_shifted_tablespace_cells_are_recognised() -> None:
    result = workload("awr_11.2.0.4.html")
    assert any("shifted against the headers" in w for w in result.warnings)
    assert not any("does not match" in w for w in result.warnings)


def test_12102_implausible_latency_is_refused() -> None:
    result = workload("awr_12.1.0.2.html")
    rate = by_path(result)[T.IMPLAUSIBLE_FILE.rsplit("/", 1)[-1]]
    assert rate.read_latency_ms is None and rate.read_iops == pytest.approx(50.0)
    assert any("36,250.00 is more than a second per read" in w and "averages 6.00 ms" in w for w in result.warnings)


def test_122_cdb_layout_names_the_pdb() -> None:
    result = workload("awr_12.2.0.1_cdb.html")
    users = [r for r in result.rates if r.tablespace == "USERS"]
    assert {r.container for r in users} == {"SALES"}
    assert all(r.path.startswith("+DATA/ORCL/") for r in users)
    assert result.server.settings["cdb"] == "YES" and result.server.instance == T.INSTANCE


def test_19c_no_data_falls_back_to_file_types() -> None:
    result = workload("awr_19c_nodata.html")
    kinds = {r.kind: r for r in result.rates}
    assert set(kinds) == {"data", "temp", "redo", "archive", "control"}
    assert kinds["data"].read_iops == pytest.approx(181.0) and kinds["data"].read_latency_ms == pytest.approx(5.8)
    assert kinds["temp"].read_iops == pytest.approx(5.0) and kinds["temp"].read_latency_ms == pytest.approx(2.0)
    assert sum("No data exists" in w for w in result.warnings) == 2
    assert result.server.version == "19.0.0.0.0" and result.server.major == 19


def test_rac_report_of_one_instance_is_flagged() -> None:
    assert any("RAC report of instance 1 only" in w for w in workload("awr_11.2.0.3_rac.html").warnings)
    assert not any("RAC" in w for w in workload("awr_11.2.0.4.html").warnings)


def test_plugin_detects_each_kind_and_round_trips_json(tmp_path: Path) -> None:
    reader = ReportCollector()
    for name, kind in (("awr_12.1.0.2.html", "awr-html"), ("awr_11.2.0.4.txt", "awr-text"),
                       ("statspack_11.2.0.4.txt", "statspack")):
        head = (FIXTURES / name).read_text()[:4096]
        assert reader.can_read(head) and detect(head) == kind
        result = reader.read_report(str(FIXTURES / name))
        assert result.source == kind
        save(result, tmp_path / f"{name}.json")
        assert load_workload(tmp_path / f"{name}.json") == result
    assert not reader.can_read('{"document": "snapshot"}')
    assert not reader.can_read("2026-11-20 10:00:00 UTC [123] LOG:  checkpoint starting")
