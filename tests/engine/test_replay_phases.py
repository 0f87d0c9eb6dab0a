"""The replay under several rotational phases: the platter's phase at a trace's start is not in
the trace, so the self-check and the gain rest on the mean over phases spread over a revolution,
today's and the planned layout under the same ones, and the check carries the spread."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from advisor.disk.physics import ModelPhysics
from advisor.disk.replay import replay
from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.replay_today import REPLAY_PHASES, REPLAY_TOLERANCE, phased_replays, replay_phases
from advisor.model import REPORT_FORMAT_VERSION, Report
from advisor.model.jsonio import decode_document, encode
from advisor.render.replay import headlines
from tests.helpers.model_trace import NOW, base_workload, expected_requests, phase_bound_stream, traced
from tests.helpers.workloads import DISK_BYTES, model, models


def _deviation(times: np.ndarray, measured: np.ndarray) -> float:
    return float(times.mean() / measured.mean() - 1.0)


def test_one_phase_misjudges_a_phase_bound_stream_and_the_mean_over_phases_does_not() -> None:
    stream = phase_bound_stream()
    measured = expected_requests(stream).service_s
    seed_zero = replay(model(DISK_BYTES), stream, DISK_BYTES)  # the one replay the self-check made before
    assert abs(_deviation(seed_zero.service_s, measured)) > REPLAY_TOLERANCE
    singles = [_deviation(replay(model(DISK_BYTES), stream, DISK_BYTES, phase=p).service_s, measured)
               for p in replay_phases(len(measured))]
    assert min(singles) < -0.3 and max(singles) > 0.3  # one phase is a draw from a spread of 60 points and more
    physics = ModelPhysics(model(DISK_BYTES))
    for shift in (0.0, 0.25, 0.5, 0.75):  # the phases' origin moved by a fraction of their step
        phases = [(k + shift) / REPLAY_PHASES for k in range(REPLAY_PHASES)]
        runs = phased_replays(physics, stream, DISK_BYTES, phases)
        assert abs(_deviation(np.mean([r.service_s for r in runs], axis=0), measured)) < 0.03, shift


def _report() -> Report:
    work = base_workload()
    requests = expected_requests(phase_bound_stream())
    return advise(AdviceRequest(dataclasses.replace(work, traces=(traced(requests, work),)), models(),
                                generated_at=NOW))


def test_the_self_check_fits_on_the_mean_over_phases_and_reports_the_spread() -> None:
    report = _report()
    (check,) = report.replay
    assert check.phases == REPLAY_PHASES
    assert check.deviation is not None and abs(check.deviation) < 0.03 and check.fits
    assert "MODEL_DOES_NOT_FIT" not in {f.code for f in report.findings}
    assert check.deviation_low is not None and check.deviation_high is not None
    assert check.deviation_low < -0.3 and check.deviation_high > 0.3
    assert check.deviation_low <= check.deviation <= check.deviation_high
    assert check.planned_ms is not None and check.predicted_gain is not None and check.replayed_ms is not None
    assert check.gain_low is not None and check.gain_high is not None
    assert check.gain_low <= check.predicted_gain <= check.gain_high
    assert check.predicted_gain == round(1.0 - check.planned_ms / check.replayed_ms, 4)
    (hot,) = [a for a in check.areas if a.area == "hot"]
    assert abs(hot.replayed_ms - check.replayed_ms) < 0.01  # every request is hot's: its row is the disk's
    line = headlines(check)[0]
    assert f"({check.deviation:+.1%}; 8 phases {check.deviation_low:+.1%} to {check.deviation_high:+.1%}, " in line


def test_a_big_trace_is_replayed_under_fewer_phases_still_spread_over_the_revolution() -> None:
    assert replay_phases(10) == tuple(k / REPLAY_PHASES for k in range(REPLAY_PHASES))
    few = replay_phases(500_000)
    assert 1 <= len(few) < REPLAY_PHASES and few == tuple(k / len(few) for k in range(len(few)))
    assert replay_phases(10**9) == (0.0,)


def test_a_report_written_before_the_phases_still_loads_and_shows_no_spread() -> None:
    report = _report()
    document = json.loads(encode(report))
    for field in ("phases", "deviation_low", "deviation_high", "gain_low", "gain_high"):
        del document["replay"][0][field]
    old = decode_document(json.dumps(document), "old.json", "report", Report, REPORT_FORMAT_VERSION)
    (check,) = old.replay
    assert check.phases is None and check.deviation_low is None and check.gain_high is None
    assert check.replayed_ms == report.replay[0].replayed_ms
    line = headlines(check)[0]
    assert f"({check.deviation:+.1%}, tolerance ±15%)" in line and "phases" not in line


def test_a_trace_over_the_request_cap_gets_fewer_phases_and_a_note_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    import advisor.engine.replay_today as replay_today

    monkeypatch.setattr(replay_today, "PHASED_REQUESTS", 3 * 200)  # the 200-request stream: three phases
    (check,) = _report().replay
    assert check.phases == 3 and check.fits and check.deviation_low is not None and check.gain_low is not None
    assert ("trace of sda: 200 requests, replayed under 3 rotational phases rather than 8 (at most 600 requests "
            "replayed per layout)") in check.notes
    monkeypatch.setattr(replay_today, "PHASED_REQUESTS", 100)
    (single,) = _report().replay
    assert single.phases == 1 and single.deviation_low is None and single.gain_low is None
    assert "phases" not in " ".join(headlines(single))
