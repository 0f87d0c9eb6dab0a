"""Analytic predictions agree with the simulator they stand in for."""

from __future__ import annotations

import pytest

from advisor.disk import predict
from advisor.disk.presets import get_model
from advisor.disk.simulate import StreamSpec, simulate

DRIVES = ["st4000vn006", "class-7200-desktop", "class-10k", "cheetah-9lp"]
BANDS = [(0.0, 1.0), predict.OUTER, predict.MIDDLE, predict.INNER, (0.2, 0.45)]


@pytest.mark.parametrize("name", DRIVES)
@pytest.mark.parametrize("band", BANDS)
def test_band_service_time_matches_simulation(name: str, band: tuple[float, float]) -> None:
    model = get_model(name)
    expected = predict.mean_service_ms(model, band, 8192)
    run = simulate(model, [StreamSpec("randread", band, 8192)], ios=6000, seed=5)
    assert expected == pytest.approx(1000.0 / run.iops, rel=0.05)


@pytest.mark.parametrize("name", DRIVES)
def test_mixed_streams_match_weighted_simulation(name: str) -> None:
    model = get_model(name)
    mix = [(predict.OUTER, 0.7, 8192, False), (predict.INNER, 0.3, 8192, False)]
    expected = predict.mixed_service_ms(model, mix)
    streams = [StreamSpec("randread", band, block, 1, weight=share) for band, share, block, _ in mix]
    run = simulate(model, streams, ios=12000, seed=5)
    assert [s.ios / run.ios for s in run.per_stream] == pytest.approx([0.7, 0.3], abs=0.02)
    total = sum(e * share for e, (_, share, _, _) in zip(expected, mix, strict=True))
    assert total == pytest.approx(1000.0 / run.iops, rel=0.05)
    # mixing with a far band costs more than staying in one band
    assert expected[0] > predict.mean_service_ms(model, predict.OUTER, 8192) * 1.3


def test_interleaving_breaks_sequential_streams() -> None:
    model = get_model("class-7200-desktop")
    alone = predict.mixed_service_ms(model, [(predict.OUTER, 1.0, 65536, True)])[0]
    mixed = predict.mixed_service_ms(model, [(predict.OUTER, 0.5, 65536, True), (predict.INNER, 0.5, 8192, False)])
    assert mixed[0] > 5 * alone
    streams = [
        StreamSpec("read", predict.OUTER, 65536, 1, weight=0.5),
        StreamSpec("randread", predict.INNER, 8192, 1, weight=0.5),
    ]
    run = simulate(model, streams, ios=8000, seed=3)
    total = 0.5 * mixed[0] + 0.5 * mixed[1]
    assert total == pytest.approx(1000.0 / run.iops, rel=0.07)


@pytest.mark.parametrize("name", ["class-5400-nas", "class-7200-desktop", "class-10k", "class-15k"])
def test_commit_rate_is_bounded_by_rotation_unless_the_cache_acknowledges(name: str) -> None:
    model = get_model(name)
    honest = predict.commit_rate_per_s(model, "volatile")
    assert 0.85 * model.rpm / 60 <= honest <= model.rpm / 60 + 1e-9
    assert predict.commit_rate_per_s(model, "battery") > 5 * model.rpm / 60
    stream = StreamSpec("write", (0.0, 12288 / model.capacity_bytes), 8192, flush_every=1)
    assert simulate(model, [stream], ios=300).iops == pytest.approx(honest, rel=0.02)
    lying = simulate(model, [stream], ios=300, write_cache="lying").iops
    assert lying > 5 * model.rpm / 60


def test_sequential_prediction_matches_simulation() -> None:
    model = get_model("hitachi-7k500")
    for band in (predict.OUTER, predict.INNER):
        expected = predict.mean_service_ms(model, band, 1 << 20, random=False)
        run = simulate(model, [StreamSpec("read", band, 1 << 20)], ios=300)
        assert expected == pytest.approx(1000.0 / run.iops, rel=0.03)


def test_zone_curve_runs_from_outer_to_inner_rate() -> None:
    model = get_model("seagate-savvio-10k3")
    curve = predict.zone_curve(model, 5)
    assert [fraction for fraction, _ in curve] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert curve[0][1] == pytest.approx(124.0) and curve[-1][1] == pytest.approx(124.0 / 1.85)
    assert all(a[1] > b[1] for a, b in zip(curve, curve[1:], strict=False))


def test_explicit_zone_table_drives_rates_and_radius() -> None:
    model = get_model("class-7200-desktop").with_changes(zones=((0.0, 200.0), (0.5, 100.0)))
    for band, rate in (((0.2, 0.3), 200.0), ((0.7, 0.8), 100.0)):
        run = simulate(model, [StreamSpec("read", band, 1 << 20)], ios=200)
        assert run.mb_s_decimal == pytest.approx(rate, rel=0.02)
    # the slow half holds half the bytes on two thirds of the stroke: its 1 % bands seek farther
    assert model.stroke(0.5) == pytest.approx(1 / 3)
    inner = predict.mean_service_ms(model, predict.INNER, 8192)
    outer = predict.mean_service_ms(model, predict.OUTER, 8192)
    assert inner > outer
    run = simulate(model, [StreamSpec("randread", predict.INNER, 8192)], ios=5000, seed=2)
    assert inner == pytest.approx(1000.0 / run.iops, rel=0.05)


@pytest.mark.parametrize("name", DRIVES)
@pytest.mark.parametrize(("reads", "data", "log"), [(2, predict.INNER, predict.OUTER), (3, (0.6, 0.7), (0.0, 0.02)),
                                                    (1, (0.05, 0.1), (0.0, 0.02))])
def test_commit_visits_match_transaction_simulation(
    name: str, reads: int, data: tuple[float, float], log: tuple[float, float]
) -> None:
    """N reads in the data band, then one log write and its flush, one IO at a time."""
    model = get_model(name)
    mix = [(data, reads / (reads + 1), 8192, False), (log, 1 / (reads + 1), 8192, True)]
    expected = predict.mixed_service_ms(model, mix, visits=[None, 1.0])
    streams = [StreamSpec("randread", data, 8192, burst=reads),
               StreamSpec("write", log, 8192, burst=1, flush_every=1)]
    run = simulate(model, streams, ios=6000, seed=5)
    assert [s.ios / run.ios for s in run.per_stream] == pytest.approx([mix[0][1], mix[1][1]], abs=0.01)
    total = sum(e * share for e, (_, share, _, _) in zip(expected, mix, strict=True))
    assert total == pytest.approx(1000.0 / run.iops, rel=0.05)
    for predicted, stream in zip(expected, run.per_stream, strict=True):
        assert predicted == pytest.approx(stream.mean_ms, rel=0.05)
    # every flush is a trip to the log and back: random interleaving under-counts them
    assert total > 1.1 * sum(e * s for e, (_, s, _, _) in zip(predict.mixed_service_ms(model, mix), mix, strict=True))


def test_visit_model_is_random_interleaving_at_the_chance_rate() -> None:
    """Visits at the rate random interleaving implies give random interleaving's answer."""
    model = get_model("class-7200-desktop")
    mix = [(predict.INNER, 0.6, 8192, False), (predict.MIDDLE, 0.15, 8192, False), (predict.OUTER, 0.25, 8192, False)]
    chance = 0.6 + 0.15  # an IO of the log opens a visit when the one before was not its own
    markov = predict.mixed_service_ms(model, mix)
    assert predict.mixed_service_ms(model, mix, visits=[None, None, None]) == markov
    visit = predict.mixed_service_ms(model, mix, visits=[None, None, chance])
    assert visit[:2] == pytest.approx(markov[:2], rel=1e-9)
    flush = model.overhead_ms + predict.HOST_TURNAROUND_MS + 8192 / 300e6 * 1000.0
    settle = model.write_settle_ms
    assert visit[2] == pytest.approx(markov[2] + chance * (flush + settle), rel=1e-6)
    # a log with no data stream to alternate with is left to random interleaving
    alone = [(predict.OUTER, 1.0, 8192, True)]
    assert predict.mixed_service_ms(model, alone, visits=[1.0]) == predict.mixed_service_ms(model, alone)


def test_bursts_and_weights_do_not_mix() -> None:
    from advisor.errors import BadInput

    model = get_model("class-7200-desktop")
    with pytest.raises(BadInput):
        simulate(model, [StreamSpec("randread", burst=2), StreamSpec("write", weight=1.0)], ios=10)
    with pytest.raises(BadInput):
        simulate(model, [StreamSpec("randread", burst=2), StreamSpec("write")], ios=10)
