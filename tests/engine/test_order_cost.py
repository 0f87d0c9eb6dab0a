"""The search's fast paths give the costs of the plain fast predictor: profiles, split and incremental."""

from __future__ import annotations

import random

import pytest

from advisor.disk.physics import ModelPhysics
from advisor.engine.optimizer import PlaceItem, _cost_fn, _row, bands_of, local_search, streams_of, visits_of
from advisor.engine.order_cost import SplitCost, incremental_search, profile_times
from tests.helpers.workloads import model


def _items(rng: random.Random, n: int, with_log: bool) -> list[PlaceItem]:
    items = []
    for i in range(n):
        size = rng.choice([0.0005, 0.002, 0.005, 0.02])
        sequential = rng.random() < 0.3
        wal = with_log and i == 0
        items.append(PlaceItem(f"a{i}", size, size * 1.3, rng.choice([0.0, 0.5, 5.0, 50.0, 200.0]),
                               131072 if sequential else 8192, sequential, wal, 1.0 if wal else None))
    return items


@pytest.mark.parametrize("seed", range(8))
def test_split_cost_and_profile_times_equal_the_fast_predictor(seed: int) -> None:
    rng = random.Random(seed)
    physics = ModelPhysics(model())
    items = _items(rng, rng.choice([6, 14, 40, 90]), with_log=seed % 2 == 0)
    if sum(i.iops for i in items) == 0:
        items[1] = PlaceItem("hot", 0.01, 0.013, 100.0, 8192, False)
    active_count = rng.randint(0, len(items))
    active, tail = items[:active_count], items[active_count:]
    split = SplitCost(physics, [_row(i) for i in active], [_row(i) for i in tail])
    order = list(range(active_count))
    rng.shuffle(order)
    laid = [active[n] for n in order] + tail
    assert split.cost(order) == pytest.approx(_cost_fn(physics)(laid), rel=1e-12, abs=1e-12)
    streams = streams_of(laid, bands_of(laid))
    fast = physics.fast_mixed_service_ms(streams, visits_of(laid))
    assert profile_times(physics, streams, visits_of(laid)) == pytest.approx(fast, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_incremental_search_takes_the_same_steps_as_the_plain_local_search(seed: int) -> None:
    rng = random.Random(100 + seed)
    physics = ModelPhysics(model())
    items = [i for i in _items(rng, 24, with_log=seed % 2 == 1) if i.iops > 0] or _items(rng, 3, False)
    tail = [PlaceItem(f"idle{n}", 0.003, 0.004, 0.01, 8192, False) for n in range(10)]
    split = SplitCost(physics, [_row(i) for i in items], [_row(i) for i in tail])
    order, value = incremental_search(split, list(range(len(items))), 6, 60)
    plain, plain_value = local_search(lambda o: _cost_fn(physics)(list(o) + tail), items, 6)
    assert [items[n].name for n in order] == [i.name for i in plain]
    assert value == pytest.approx(plain_value, rel=1e-12)
    assert value <= _cost_fn(physics)(items + tail) + 1e-12  # never worse than where it started


def test_orders_without_busy_areas_or_without_any_io() -> None:
    """No area busy, or none with any IO: every area placed, the cost 0 or what the plain cost says."""
    from advisor.engine.optimizer import heuristic_order, optimise

    physics = ModelPhysics(model())
    silent = [PlaceItem(f"a{i}", 0.01, 0.012, 0.0, 8192, False) for i in range(10)]
    order, cost = heuristic_order(physics, silent)
    assert sorted(i.name for i in order) == sorted(i.name for i in silent) and cost == 0.0
    one = [PlaceItem("hot", 0.01, 0.012, 5.0, 8192, False)] + silent
    order, cost = heuristic_order(physics, one)
    assert order[0].name == "hot" and cost == pytest.approx(_cost_fn(physics)(order), rel=1e-12)
    assert optimise(physics, [PlaceItem(f"b{i}", 0.001, 0.0012, 0.0, 8192, False) for i in range(60)]).mean_ms == 0.0
