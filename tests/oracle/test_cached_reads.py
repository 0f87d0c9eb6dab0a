"""Cached reads in imported workloads: shown beside the disk-visible ones, planned by `--cache kept|lost`.

The fixtures are the cached-read reports of tests/oracle/fixtures (cached_truth.py): TS_UNIAUTH
reads 1,226 times a second at 0.03 ms (a cache), USERS at an ordinary 8 ms (a disk), and a
Statspack report whose timings are all zero. Every run goes through the real command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.collectors.awr import read_report
from advisor.engine.cached_reads import estimate
from tests.helpers.cli import run_advisor
from tests.oracle import cached_truth as C

FIXTURES = Path(__file__).parent / "fixtures"
INVENTORY = """host = "db-new"
headroom = 0.3

[[device]]
name = "nvme0"
medium = "nvme"
capacity = "400 GB"
preset = "nvme-gen4"

[[device]]
name = "hdd"
medium = "hdd"
capacity = "4 TB"
count = 2
preset = "class-7200-desktop"
"""


def _uniauth_disk_reads_s() -> float:
    """TS_UNIAUTH's reads a disk may have served, worked out by hand from the truth as docs/awr-import.md says.

    HTML prints 0.03 with two decimals: the mean is at most 0.035 ms, the single-block time
    between 0.025 and 0.035 ms; single-block floor 1 ms, multi-block floor the multi-block
    mean size at 300 MB/s.
    """
    single, block = 0.03, 8192
    mean_hi, single_hi, single_lo = C.UNIAUTH_MS + 0.005, C.UNIAUTH_MS + 0.005, C.UNIAUTH_MS - 0.005
    multi_blocks = (C.UNIAUTH_BLOCKS - single) / (1 - single)
    multi_floor_ms = multi_blocks * block / 300e6 * 1000
    multi_ms = (mean_hi - single * single_lo) / (1 - single)
    cached = single * (1 - single_hi / 1.0) + (1 - single) * (1 - multi_ms / multi_floor_ms)
    return C.UNIAUTH_READS_S * (1 - cached)


DISK_READS_S = _uniauth_disk_reads_s()  # about 23.4: 98 % of 1,226 r/s came from a cache


@pytest.fixture(scope="module")
def cached_workload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cached") / "workload.json"
    done = run_advisor("collect", "--from-report", str(FIXTURES / "awr_11.2.0.4_cached.html"), "-o", str(out))
    assert done.returncode == 0, done.stderr
    return out


def _by_path(name: str) -> dict[str, float | None]:
    workload = read_report(FIXTURES / name)
    return {e.path: e.share for e in estimate(workload)}


def test_the_wait_event_histogram_is_read_from_html_and_text() -> None:
    for name in ("awr_11.2.0.4_cached.html", "awr_11.2.0.4_cached.txt", "statspack_11.2.0.4_cached.txt"):
        evidence = read_report(FIXTURES / name).read_evidence
        assert evidence is not None
        events = {e.event: e for e in evidence.events}
        assert set(events) == {"db file sequential read", "db file scattered read"}, name  # read events only
        assert events["db file sequential read"].share_under(1.0) == pytest.approx(C.SEQUENTIAL_UNDER_1MS), name
        assert events["db file sequential read"].total_waits == 784_000, name  # "784K"
        assert events["db file scattered read"].percent[-1] == 0.0, name  # an empty cell: "null is truly 0"


def test_a_file_read_at_003_ms_is_mostly_cached_and_one_at_8_ms_is_not() -> None:
    html = _by_path("awr_11.2.0.4_cached.html")
    assert html[C.UNIAUTH_PATH] is not None and 0.97 < html[C.UNIAUTH_PATH] < 1.0  # type: ignore[operator]
    assert html[C.USERS_PATH] == 0.0
    text = _by_path("statspack_11.2.0.4_cached.txt")  # Av Rd(ms) printed "0.0": bounded by 0.05 ms, never 100 %
    assert text[C.UNIAUTH_PATH] is not None and 0.95 < text[C.UNIAUTH_PATH] < 1.0  # type: ignore[operator]
    assert text[C.USERS_PATH] == 0.0
    awr_text = _by_path("awr_11.2.0.4_cached.txt")  # 1-bk and mean both printed "0.0"
    assert awr_text[C.UNIAUTH_PATH] is not None and 0.95 < awr_text[C.UNIAUTH_PATH] < 1.0  # type: ignore[operator]
    assert awr_text[C.USERS_PATH] == 0.0
    # SYSAUX at 2.4 ms: the mean alone proves nothing, its File Read Histogram (70 % in 0-2 ms) does
    assert html[C.SYSAUX_PATH] == 0.0
    assert text[C.SYSAUX_PATH] is not None and 0.3 < text[C.SYSAUX_PATH] < 0.7  # type: ignore[operator]


def test_without_read_times_the_share_is_unknown() -> None:
    assert set(_by_path("statspack_11.2.0.4_untimed.txt").values()) == {None}
    dropped = _by_path("awr_12.1.0.2.html")  # the 36,250 ms Av Rd(ms) is dropped: that file's share is unknown
    assert dropped["/u02/oradata/ORCL/users02.dbf"] is None
    assert dropped["/u02/oradata/ORCL/users01.dbf"] == 0.0


def test_workload_shows_cached_and_disk_visible_reads(cached_workload: Path) -> None:
    done = run_advisor("workload", str(cached_workload))
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())  # the line wraps at the output's width
    line = text[text.index("TS_UNIAUTH ("):]
    assert line.startswith("TS_UNIAUTH (/u02/oradata/ORCL/ts_uniauth01.dbf): 1,226.0 r/s, at least 98 % from a cache "
                           "at 0.03 ms per read")
    assert f"at most {DISK_READS_S:,.1f} r/s reached a disk" in line
    assert not any(x.startswith("USERS (") for x in done.stdout.splitlines())


def test_untimed_report_says_the_share_is_unknown(tmp_path: Path) -> None:
    out = tmp_path / "w.json"
    assert run_advisor("collect", "--from-report", str(FIXTURES / "statspack_11.2.0.4_untimed.txt"), "-o",
                   str(out)).returncode == 0
    shown = run_advisor("workload", str(out))
    assert "6 files (1,412.0 r/s) have no usable read time" in shown.stdout
    assert "timed_statistics off" in shown.stdout and "unknown" in shown.stdout
    done = run_advisor("report", "--workload", str(out), "--assume-size", "10G", "--preset", "class-7200-desktop",
                   "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert "READS_CACHED" not in {f["code"] for f in report["findings"]}
    uniauth = next(a for a in report["areas"] if a["name"] == "TS_UNIAUTH")
    assert uniauth["read_iops"] == pytest.approx(C.UNIAUTH_READS_S) and uniauth["disk_read_share"] is None


def test_report_finds_the_cached_file_only(cached_workload: Path) -> None:
    done = run_advisor("report", "--workload", str(cached_workload), "--assume-size", "10G", "--preset",
                   "class-7200-desktop", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    cached = [f for f in report["findings"] if f["code"] == "READS_CACHED"]
    assert [f["subject"] for f in cached] == [C.UNIAUTH_PATH]
    assert cached[0]["evidence"]["db_read_iops"] == pytest.approx(C.UNIAUTH_READS_S)
    assert cached[0]["evidence"]["disk_read_iops"] == pytest.approx(DISK_READS_S, abs=0.01)
    areas = {a["name"]: a for a in report["areas"]}
    assert areas["TS_UNIAUTH"]["read_iops"] == pytest.approx(DISK_READS_S, abs=0.01)
    assert areas["TS_UNIAUTH"]["db_read_iops"] == pytest.approx(C.UNIAUTH_READS_S)
    assert areas["USERS"]["read_iops"] == pytest.approx(150.0) and areas["USERS"]["disk_read_share"] == 1.0


def _tier_plan(workload: Path, tmp_path: Path, cache: str) -> dict:  # type: ignore[type-arg]
    inventory = tmp_path / "inventory.toml"
    inventory.write_text(INVENTORY)
    done = run_advisor("plan", "--workload", str(workload), "--target", str(inventory), "--assume-size", "100G",
                   "--cache", cache, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_the_plan_follows_the_cache_option(cached_workload: Path, tmp_path: Path) -> None:
    kept, lost = (_tier_plan(cached_workload, tmp_path, c) for c in ("kept", "lost"))
    load = {name: {a["area"]: a for a in r["plan"]["tiers"]["assignments"]} for name, r in
            (("kept", kept), ("lost", lost))}
    writes = 483_955 / 3600
    assert load["kept"]["TS_UNIAUTH"]["iops"] == pytest.approx(DISK_READS_S + writes, abs=0.01)
    assert load["lost"]["TS_UNIAUTH"]["iops"] == pytest.approx(C.UNIAUTH_READS_S + writes, abs=0.1)
    # 647 MB/s of cache hits make it a scan; what a disk served leaves a write-heavy area
    assert (load["kept"]["TS_UNIAUTH"]["kind"], load["lost"]["TS_UNIAUTH"]["kind"]) == ("write-heavy", "scan")
    assert load["kept"]["USERS"]["iops"] == load["lost"]["USERS"]["iops"]  # a disk's reads are the same either way
    assert kept["plan"]["predicted_before_ms"] != lost["plan"]["predicted_before_ms"]
    assert any(f"planned by the {DISK_READS_S:,.1f} r/s a disk served (--cache kept)" in w for w in kept["warnings"])
    assert any("planned by all 1,226.0 r/s (--cache lost)" in w for w in lost["warnings"])
    finding = next(f for f in lost["findings"] if f["code"] == "READS_CACHED")
    assert finding["evidence"]["cache"] == "lost"


def test_a_bad_cache_value_is_one_line_exit_6(cached_workload: Path) -> None:
    done = run_advisor("plan", "--workload", str(cached_workload), "--assume-size", "10G", "--cache", "maybe")
    assert done.returncode == 6
    assert done.stderr.strip().count("\n") == 0 and "--cache 'maybe': use kept or lost" in done.stderr
    assert not done.stdout


def test_the_zone_plan_follows_the_cache_option(cached_workload: Path) -> None:
    plans = {}
    for cache in ("kept", "lost"):
        done = run_advisor("plan", "--workload", str(cached_workload), "--preset", "class-7200-desktop",
                           "--assume-size",
                       "10G", "--cache", cache, "--format", "json")
        assert done.returncode == 0, done.stderr
        plans[cache] = {t["area"]: t for t in json.loads(done.stdout)["plan"]["service_times"]}
    writes = 483_955 / 3600
    assert plans["kept"]["TS_UNIAUTH"]["iops"] == pytest.approx(DISK_READS_S + writes, abs=0.01)
    assert plans["lost"]["TS_UNIAUTH"]["iops"] == pytest.approx(C.UNIAUTH_READS_S + writes, abs=0.1)
    assert plans["kept"]["USERS"]["iops"] == plans["lost"]["USERS"]["iops"]
