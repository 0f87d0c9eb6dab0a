"""The placement optimizer against exhaustive search, and its fast cost against the exact predictor."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from advisor.disk.physics import ModelPhysics, weighted_mean_ms
from advisor.engine.optimizer import (
    PlaceItem,
    _cost_fn,
    bands_of,
    evaluate,
    exhaustive_order,
    heuristic_order,
    optimise,
    streams_of,
)
from advisor.errors import BadInput
from tests.helpers.workloads import model


def random_items(rng: random.Random, n: int) -> list[PlaceItem]:
    items = []
    for i in range(n):
        size = rng.choice([0.002, 0.01, 0.03, 0.08, 0.15])
        sequential = rng.random() < 0.3
        iops = rng.choice([0.0, 1.0, 10.0, 50.0, 150.0, 400.0])
        items.append(PlaceItem(f"a{i}", size, size * 1.2, iops, 8192 if not sequential else 131072, sequential,
                               wal=sequential and rng.random() < 0.3))
    return items


@pytest.mark.parametrize("seed", range(10))
def test_heuristic_within_two_percent_of_exhaustive(seed: int) -> None:
    rng = random.Random(seed)
    physics = ModelPhysics(model())
    n = 8 if seed < 2 else rng.randint(4, 7)
    items = random_items(rng, n)
    if sum(i.iops for i in items) == 0:
        items[0] = PlaceItem("hot", 0.01, 0.012, 100.0, 8192, False)
    _, best = exhaustive_order(physics, items)
    order, found = heuristic_order(physics, items)
    assert sorted(i.name for i in order) == sorted(i.name for i in items)
    assert found <= best * 1.02 + 1e-9, f"heuristic {found:.4f} ms vs optimum {best:.4f} ms"
    # the exhaustive optimum is no worse than the order it was given or its reverse
    cost = _cost_fn(physics)
    assert best <= cost(items) + 1e-9 and best <= cost(items[::-1]) + 1e-9


def test_fast_cost_agrees_with_the_exact_predictor() -> None:
    physics = ModelPhysics(model())
    rng = random.Random(42)
    for _ in range(20):
        items = random_items(rng, rng.randint(2, 6))
        if sum(i.iops for i in items) == 0:
            continue
        streams = streams_of(items, bands_of(items))
        exact = weighted_mean_ms(streams, physics.mixed_service_ms(streams))
        fast = weighted_mean_ms(streams, physics.fast_mixed_service_ms(streams))
        assert abs(fast - exact) <= 0.05 * exact, (fast, exact)


def test_hot_small_random_area_goes_outer_and_idle_area_inner() -> None:
    physics = ModelPhysics(model())
    items = [PlaceItem("idle", 0.4, 0.4, 0.0, 8192, False), PlaceItem("hot", 0.02, 0.026, 300.0, 8192, False),
             PlaceItem("scan", 0.1, 0.13, 20.0, 262144, True)]
    solution = optimise(physics, items)
    order = [i.name for i in solution.disks[0].order]
    assert order[-1] == "idle"
    assert order.index("hot") < order.index("idle")
    times, mean = evaluate(physics, solution.disks[0].order)
    assert mean == pytest.approx(solution.mean_ms)


def test_areas_that_do_not_fit_are_refused() -> None:
    physics = ModelPhysics(model())
    items = [PlaceItem("a", 0.7, 0.9, 1.0, 8192, False), PlaceItem("b", 0.3, 0.3, 1.0, 8192, False)]
    with pytest.raises(BadInput, match="bigger disk|more --disks"):
        optimise(physics, items)
    assert len(optimise(physics, items, disks=2).disks) == 2


@pytest.mark.parametrize("seed", [3, 4])
def test_heuristic_holds_against_random_restarts_on_larger_instances(seed: int) -> None:
    from advisor.engine.optimizer import local_search

    rng = random.Random(seed)
    physics = ModelPhysics(model())
    items = [PlaceItem(f"a{i}", s, s * 1.3, iops, 8192, False)
             for i, (s, iops) in enumerate((rng.choice([0.005, 0.02, 0.05]), rng.choice([5.0, 40.0, 200.0]))
                                           for _ in range(12))]
    _, found = heuristic_order(physics, items)
    cost = _cost_fn(physics)
    best = min(local_search(cost, rng.sample(items, len(items)))[1] for _ in range(6))
    assert found <= best * 1.02, (found, best)


def test_fast_cost_agrees_with_the_exact_predictor_when_the_log_comes_in_visits() -> None:
    physics = ModelPhysics(model())
    rng = random.Random(7)
    checked = 0
    for _ in range(30):
        items = random_items(rng, rng.randint(2, 6))
        items = [PlaceItem(i.name, i.size_fraction, i.slot_fraction, i.iops, i.block_bytes, i.sequential, i.wal,
                           visits=rng.choice([0.5, 1.0]) if i.wal else None) for i in items]
        if sum(i.iops for i in items) == 0 or not any(i.wal for i in items):
            continue
        streams = streams_of(items, bands_of(items))
        visits = [i.visits for i in items]
        exact = weighted_mean_ms(streams, physics.mixed_service_ms(streams, visits))
        fast = weighted_mean_ms(streams, physics.fast_mixed_service_ms(streams, visits))
        assert abs(fast - exact) <= 0.05 * exact, (fast, exact)
        checked += 1
    assert checked >= 5


def test_flushed_log_far_from_the_data_costs_more_than_chance_says() -> None:
    """A WAL flushed by every commit is a round trip per commit: evaluate() counts it."""
    physics = ModelPhysics(model())
    data = PlaceItem("hot", 0.05, 0.05, 200.0, 8192, False)
    wal = PlaceItem("WAL", 0.01, 0.01, 100.0, 8192, True, wal=True)
    spacer = PlaceItem("cold", 0.8, 0.8, 0.0, 8192, False)
    _, chance = evaluate(physics, [wal, spacer, data])
    times, flushed = evaluate(physics, [replace(wal, visits=1.0), spacer, data])
    assert flushed > 1.1 * chance
    # packed next to each other, the round trip is short and the plan puts them there
    _, packed = evaluate(physics, [replace(wal, visits=1.0), data, spacer])
    assert packed < 0.8 * flushed
    solution = optimise(physics, [replace(wal, visits=1.0), spacer, data])
    assert [i.name for i in solution.disks[0].order][-1] == "cold"
