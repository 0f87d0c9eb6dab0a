"""`advisor demo` end to end: real PostgreSQL 18, the emulated HDD, the plan applied, nothing left.

The emulated run needs root, /dev/fuse and loop devices; the simulated run needs only the
embedded PostgreSQL 18 binaries. Each run uses its own ``--workdir`` under tmp_path so
the leftover checks look only at what this test started.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.demo import emulation_possible
from advisor.demo.cleanup import leftovers
from tests.helpers.cli import run_advisor, start_advisor
from tests.helpers.traced import orphaned_instances

REPO = Path(__file__).resolve().parents[2]
CAN_EMULATE = emulation_possible()



def _assert_clean(workdir: Path) -> None:
    problems = leftovers(workdir)
    assert problems == [], problems
    assert list(workdir.iterdir()) == [p for p in workdir.iterdir() if p.suffix == ".json"], \
        f"temporary files left: {list(workdir.iterdir())}"


@pytest.mark.alone
@pytest.mark.root
@pytest.mark.pg
@pytest.mark.slow
@pytest.mark.skipif(CAN_EMULATE is not None, reason=f"emulated HDD impossible here: {CAN_EMULATE}")
def test_quick_demo_applies_the_plan_and_measures_an_improvement(tmp_path: Path) -> None:
    summary_path = tmp_path / "summary.json"
    done = run_advisor("demo", "--quick", "--workdir", str(tmp_path), "--summary-json", str(summary_path), "--format",
                       "json", cwd=REPO, timeout=600)
    assert done.returncode in (0, 4), done.stderr[-3000:]
    summary: dict[str, Any] = json.loads(summary_path.read_text())
    assert json.loads(done.stdout) == summary
    assert summary["mode"] == "emulated" and "MEASURED" in summary["label"]
    codes = {f["code"] for f in summary["findings"]}
    assert codes & {"CROSS_SURFACE", "HOT_ON_INNER"}, codes
    # The plan's own script moved the hot table from the inner to the outer partition.
    assert summary["hot_table"]["before"]["area"] == "inner"
    assert summary["hot_table"]["after"]["area"] == "outer"
    assert summary["hot_table"]["after"]["tablespace"] != summary["hot_table"]["before"]["tablespace"]
    # ... and advisor where agrees: inner quarter-plus before, outer quarter after (partitions 25/35/40 %).
    where_before, where_after = summary["hot_table"]["before"]["where"], summary["hot_table"]["after"]["where"]
    assert where_before["placement_known"] and where_after["placement_known"]
    assert where_before["zone_start"] >= 0.59 and where_after["zone_end"] <= 0.26, (where_before, where_after)
    assert where_before["partition"].endswith("p3") and where_after["partition"].endswith("p1")
    assert "postgres.sql" in summary["applied_scripts"]
    assert any("CREATE TABLESPACE" in s["text"] for s in summary["plan"]["scripts"] if s["name"] == "postgres.sql")
    before, after = summary["before"], summary["after"]
    assert before["transactions"] > 0 and after["transactions"] > 0
    _assert_split_consistent(summary)
    if done.returncode == 4:  # the host's share moved more than the gain, twice: no claim, and says why
        assert summary["verdict"]["valid"] is False and summary["verdict"]["attempts"] == 2, summary["verdict"]
        assert summary["measured_gain"] == {}
    else:
        assert summary["verdict"]["valid"] is True, summary["verdict"]
        assert after["tps"] > before["tps"], (before, after)
    assert summary["predicted_gain"] is not None and summary["predicted_gain"] > 0
    _assert_prediction_is_the_replays(summary)
    assert summary["leftovers"] == []
    _assert_clean(tmp_path)


def _assert_prediction_is_the_replays(summary: dict[str, Any]) -> None:
    """The before run was collected with a trace; the prediction is the replay's where its self-check
    held on the disk the plan lays out (requests-weighted, as the plan's verdict), else the aggregate
    model's, marked."""
    from advisor.demo.summary import render_text

    prediction = summary["prediction"]
    judged = [c for c in prediction["replay"] if c["refused"] is None and c["planned_ms"] is not None]
    assert judged, prediction  # the emulated disk was traced (root, tracefs) and replayed under the plan
    text = render_text(_summary_of(summary))
    if all(c["fits"] for c in judged):
        replayed = sum(c["predicted_gain"] * c["requests"] for c in judged) / sum(c["requests"] for c in judged)
        assert prediction["source"] == "replay" and summary["predicted_gain"] == replayed
        error = f" ± {prediction['error'] * 100:.1f}" if prediction.get("error") is not None else ""
        assert f"Predicted time saved: {replayed * 100:+.1f} %{error} by the replay of the traced before run" in text
    else:
        assert prediction["source"] == "aggregate"
        assert summary["predicted_gain"] == summary["plan"]["predicted_gain"]
        assert "by the AGGREGATE model, not the replay: the replay's self-check failed" in text
    assert prediction["aggregate_gain"] == summary["plan"]["predicted_gain"]
    assert ("Prediction holds" in text) == (prediction["judgement"]["holds"] is True)


def _assert_split_consistent(summary: dict[str, Any]) -> None:
    """Each run's modelled-disk and host time, from the emulator's clock, make up what pgbench measured."""
    from advisor.demo.summary import render_text
    from advisor.demo.timesplit import COVERAGE_TOLERANCE

    for name in ("before", "after"):
        split, run = summary["time_split"][name], summary[name]
        assert split["transactions"] == run["transactions"]
        assert abs(split["measured_s"] - run["transactions"] * run["latency_ms"] / 1000) < 0.01
        assert split["disk_s"] > 0 and split["host_s"] > 0 and split["dropped"] == 0, split
        assert abs(split["disk_s"] + split["host_s"] - split["measured_s"]) <= COVERAGE_TOLERANCE * split["measured_s"]
        assert split["requests"]["read"] > 0 and split["requests"]["flush"] > 0, split  # reads and commits
        assert 0.5 < split["reads_per_select"] < 4, split  # an index leaf and a heap page at most, per SELECT
        assert split["read_disk_ms"] + split["read_host_ms"] == pytest.approx(run["read_latency_ms"])
        assert 0 < split["read_disk_ms"] < run["read_latency_ms"], (split, run)
    text = render_text(_summary_of(summary))
    assert "where the time went" in text and "modelled disk" in text
    assert ("Measurement valid" in text) == summary["verdict"]["valid"]
    assert ("NOT VALID" in text) == (not summary["verdict"]["valid"])


def _summary_of(data: dict[str, Any]) -> Any:
    from advisor.demo.summary import DemoSummary, Measurement

    fields = {k: v for k, v in data.items() if k not in ("before", "after")}
    return DemoSummary(**fields, before=Measurement(**data["before"]), after=Measurement(**data["after"]))


class _PgbenchStaller:
    """Stop the demo's pgbench for half of every 60 ms: time its transactions spend on the host.

    The disk never sees that time, so the host's share of each measured run grows whatever else
    the machine does (busy loops competing with the demo did not always make it grow enough).
    """

    def __init__(self, demo_pid: int) -> None:
        self.demo_pid = demo_pid
        self.stalled: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self._signal(self.stalled, signal.SIGCONT)  # never leave a process stopped

    def _pgbench_children(self) -> list[int]:
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
            except OSError:
                continue
            name, rest = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
            if name == "pgbench" and int(rest[1]) == self.demo_pid:
                found.append(int(stat.parent.name))
        return found

    @staticmethod
    def _signal(pids: Iterable[int], sig: signal.Signals) -> None:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = self._pgbench_children()
            self.stalled.update(pids)
            self._signal(pids, signal.SIGSTOP)
            time.sleep(0.03)
            self._signal(pids, signal.SIGCONT)
            time.sleep(0.03)


@pytest.mark.root
@pytest.mark.pg
@pytest.mark.slow
@pytest.mark.skipif(CAN_EMULATE is not None, reason=f"emulated HDD impossible here: {CAN_EMULATE}")
def test_host_time_during_the_after_runs_voids_the_claim(tmp_path: Path) -> None:
    """pgbench held on the host for half its time from the first after run on: the demo claims nothing."""
    summary_path = tmp_path / "summary.json"
    proc = start_advisor("demo", "--quick", "--seconds", "3", "--workdir", str(tmp_path),  # the verdict, not a gain
                         "--summary-json", str(summary_path), cwd=REPO)
    staller = _PgbenchStaller(proc.pid)
    seen: list[str] = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            seen.append(line)
            if "== apply" in line:  # the before run is over: hold pgbench on the host for the after runs
                staller.start()
                break
        out, err = proc.communicate(timeout=400)
    finally:
        staller.stop()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert staller.stalled, "".join(seen)[-2000:]
    summary = json.loads(summary_path.read_text())
    assert proc.returncode == 4, err[-3000:]
    verdict = summary["verdict"]
    assert verdict["valid"] is False and verdict["attempts"] == 2 and len(verdict["rejected"]) == 1, verdict
    assert "the host's" in verdict["reason"], verdict["reason"]
    assert summary["time_split"]["after"]["host_share"] > summary["time_split"]["before"]["host_share"]
    assert summary["measured_gain"] == {}
    assert "NOT VALID" in out and "No speed-up or loss is claimed" in out
    assert "change" not in out.split("NOT VALID")[0] and "measured: no claim" in out  # no change column, no gain
    assert "once more" in " ".join(err.split())  # the line may wrap at the terminal's width
    assert summary["leftovers"] == []
    _assert_clean(tmp_path)


@pytest.mark.root
@pytest.mark.pg
@pytest.mark.slow
@pytest.mark.skipif(CAN_EMULATE is not None, reason=f"emulated HDD impossible here: {CAN_EMULATE}")
def test_sigterm_midway_stops_and_removes_everything(tmp_path: Path) -> None:
    orphans = orphaned_instances()
    proc = start_advisor("demo", "--quick", "--workdir", str(tmp_path), cwd=REPO)
    seen: list[str] = []
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            seen.append(line)
            if "# before" in line:  # PostgreSQL, the emulated disk, its mounts and pgbench are all running
                break
        assert any("# before" in line for line in seen), "".join(seen)[-2000:]
        live = leftovers(tmp_path)
        assert any(item.startswith("mount ") for item in live), live  # the check sees a running demo
        assert any("process" in item for item in live), live
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err[-2000:]  # as a shell reports a SIGTERM
    assert "interrupted" in err
    _assert_clean(tmp_path)
    assert orphaned_instances() <= orphans  # its traced collect was stopped, not killed: no tracefs instance left


@pytest.mark.pg
@pytest.mark.slow
def test_simulated_demo_is_labelled_and_predicts_a_gain(tmp_path: Path) -> None:
    done = run_advisor("demo", "--simulated", "--quick", "--workdir", str(tmp_path), "--format", "json", cwd=REPO,
                       timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "SIMULATED" in done.stderr
    summary = json.loads(done.stdout)
    assert summary["mode"] == "simulated" and "SIMULATED" in summary["label"]
    assert summary["after"] is None  # nothing measured after: the model predicts
    assert summary["before"]["transactions"] > 0
    sim = summary["simulated"]
    assert sim["before"]["table_band"][0] >= 0.6  # the table really was in the "inner" directory's band
    assert sim["before_ms"] > sim["after_ms"] > 0
    assert 0 < summary["predicted_gain"] < 1
    assert {f["code"] for f in summary["findings"]} == {"CROSS_SURFACE"}
    assert summary["hot_table"]["before"]["area"] == "inner"
    assert summary["leftovers"] == []
    _assert_clean(tmp_path)


def test_bad_format_is_a_one_line_error(tmp_path: Path) -> None:
    done = run_advisor("demo", "--simulated", "--format", "html", "--workdir", str(tmp_path), timeout=60, cwd=REPO)
    assert done.returncode == 6
    assert done.stderr.strip().splitlines() == ["advisor: error: --format: use terminal or json"]
    assert list(tmp_path.iterdir()) == []


def test_unknown_preset_is_refused_before_anything_starts(tmp_path: Path) -> None:
    done = run_advisor("demo", "--simulated", "--preset", "no-such-drive", "--workdir", str(tmp_path), timeout=60,
                       cwd=REPO)
    assert done.returncode == 6
    assert done.stderr.strip().splitlines() == [
        "advisor: error: unknown drive preset 'no-such-drive' (see `advisor disk presets`)"]
    assert list(tmp_path.iterdir()) == []


def test_missing_workdir_is_refused(tmp_path: Path) -> None:
    done = run_advisor("demo", "--simulated", "--workdir", str(tmp_path / "nope"), timeout=60, cwd=REPO)
    assert done.returncode == 6
    assert "is not a directory" in done.stderr
    assert "Traceback" not in done.stderr


def test_running_as_root_runs_the_server_as_another_account() -> None:
    from advisor.demo.embedded import as_server_user

    argv = as_server_user(["postgres", "--version"])
    if os.geteuid() == 0:
        assert argv[0] == "setpriv" and "--reuid=postgres" in argv
        done = subprocess.run(argv[:-2] + ["id", "-un"], capture_output=True, text=True, check=True)
        assert done.stdout.strip() == "postgres"
    else:
        assert argv == ["postgres", "--version"]


@pytest.mark.root
@pytest.mark.pg
@pytest.mark.slow
@pytest.mark.skipif(CAN_EMULATE is not None, reason=f"emulated HDD impossible here: {CAN_EMULATE}")
def test_a_demo_killed_with_sigkill_is_cleaned_up_by_the_next_one(tmp_path: Path) -> None:
    from advisor.demo.cleanup import cleanup_stale

    proc = start_advisor("demo", "--quick", "--workdir", str(tmp_path), cwd=REPO, stdout=subprocess.DEVNULL)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "== measure" in line:  # server running on the mounted emulated disk
                break
        assert proc.poll() is None, "the demo ended before it could be killed"
        assert cleanup_stale(tmp_path) == []  # its owner is alive: not stale, untouched
        proc.kill()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    left = leftovers(tmp_path)
    assert any("process" in item for item in left) and any(item.startswith("mount ") for item in left), left
    cleaned = cleanup_stale(tmp_path)
    assert len(cleaned) == 1 and cleaned[0].name.startswith("advisor-demo-")
    _assert_clean(tmp_path)


@pytest.mark.root
@pytest.mark.pg
@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop to an unprivileged account")
def test_without_root_the_demo_falls_back_to_the_simulated_story() -> None:
    # As 'nobody' (searching directories is allowed so the root-owned interpreter and
    # binaries are reachable, nothing else): no loop devices, no FUSE, no root. pytest's
    # own directories are private to root, so the work directory is a fresh one in /tmp.
    workdir = Path(tempfile.mkdtemp(prefix="advisor-nonroot-"))
    try:
        workdir.chmod(0o777)
        as_nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--inh-caps=+dac_read_search",
                     "--ambient-caps=+dac_read_search"]
        done = run_advisor("demo", "--quick", "--format", "json", "--workdir", str(workdir), prefix=as_nobody,
                           env={"HOME": str(workdir)}, cwd=REPO)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "SIMULATED run (not root)" in " ".join(done.stderr.split())
        summary = json.loads(done.stdout)
        assert summary["mode"] == "simulated" and 0 < summary["predicted_gain"] < 1
        assert summary["leftovers"] == []
        _assert_clean(workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def test_simulated_layouts_take_turns_when_flushes_are_counted() -> None:
    """Reads per flush, then the WAL write and its flush: every commit is a round trip."""
    from advisor.demo.simulated import Rates, simulate_layouts
    from advisor.disk.presets import get_model

    model = get_model("class-7200-desktop")
    turns = simulate_layouts(model, Rates(3000.0, 150 << 20, 1000.0, 1000.0, 48 << 20), 2 << 30)
    assert turns["reads_per_flush"] == 3 and turns["flush_every"] == 1
    # without a flush count the streams interleave at random and the flushes go unseen
    blind = simulate_layouts(model, Rates(3000.0, 150 << 20, 1000.0, 0.0, 48 << 20), 2 << 30)
    assert blind["reads_per_flush"] is None
    assert turns["before"]["wal_latency_ms"] > 1.5 * turns["after"]["wal_latency_ms"]
    assert turns["predicted_gain"] > blind["predicted_gain"] + 0.1
