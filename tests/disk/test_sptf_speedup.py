"""The fast SPTF path and the written-out read path give exactly what the plain code gives.

`Reference` below is the straightforward implementation (seek curve interpolated inline,
every queued request priced, the read path as separate calls). Simulations and single
decisions must match it bit for bit: speed must not move any figure.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence
from typing import Any

import pytest

import advisor.disk.simulate as simulate_module
from advisor.disk import predict
from advisor.disk.mechanism import Geometry, Mechanism, Request
from advisor.disk.model import DiskModel
from advisor.disk.presets import get_model, preset_names
from advisor.disk.seektable import seek_table
from advisor.disk.simulate import StreamSpec, simulate
from advisor.disk.sptf import ReadChooser


class Unpruned(ReadChooser):
    """A chooser that never decides: the simulator then asks choose() for every decision."""

    def choose(self, *args: Any) -> int | None:
        return None


class Reference(Mechanism):
    """Mechanism with the plain SPTF choice and read path."""

    def read_chooser(self) -> ReadChooser:
        return Unpruned(self)

    def choose(self, pending: Sequence[Any], now_s: float) -> int:
        if len(pending) <= 1:
            return 0
        t = max(now_s, self.busy_until) + self.overhead
        turns_now = t / self.t_rev + self.phase
        grid, steps = self._grid, self._steps
        best, best_cost = 0, math.inf
        oldest, oldest_t = 0, math.inf
        for i, req in enumerate(pending):
            if req.submitted_s < oldest_t:
                oldest, oldest_t = i, req.submitted_s
            offset, length = req.offset_bytes, req.length_bytes
            if req.op == "flush":
                cost = 0.0
            elif req.op == "read" and 0 <= self.ra_lo <= offset and offset + length <= self.ra_limit:
                cost = -1.0
            elif (
                req.op == "write" and self.write_cache != "off" and self.dirty_bytes + length <= self.model.cache_bytes
            ):
                cost = -0.5
            else:
                geo = self.locate(offset, length)
                distance = abs(geo[0] - self.head_cyl)
                seek = 0.0
                if distance:
                    pos = math.sqrt(distance * (1.0 / self.cylinders)) * steps
                    k = int(pos)
                    ms = grid[k] + (pos - k) * (grid[k + 1] - grid[k]) if k < steps else grid[steps]
                    seek = max(ms, self._seek_min) / 1000.0
                    if req.op == "write" and self.write_cache == "off":
                        seek += self.settle
                wait = ((geo[1] - turns_now - seek / self.t_rev) % 1.0) * self.t_rev
                if wait < self.margin:
                    wait += self.t_rev
                cost = seek + wait
            if cost < best_cost:
                best, best_cost = i, cost
        return oldest if t - oldest_t > self.max_age else best

    def _ra_stop(self, t: float) -> None:
        if self.ra_lo >= 0 and self.ra_rate > 0.0:
            avail = self._ra_available(t)
            self.ra_base = self.ra_limit = avail
            self.ra_rate = 0.0
            x = max(avail - 1, 0) / self.capacity
            self.head_cyl = min(int(self.model.stroke(min(x, 1.0)) * self.cylinders), self.cylinders - 1)

    def _media(self, write: bool, geo: Geometry, t: float) -> float:
        distance = abs(geo[0] - self.head_cyl)
        seek = self.seek_s(distance)
        if write and distance:
            seek += self.settle
        arrive = t + seek
        finish = arrive + self.wait_s(geo[1], arrive) + geo[2]
        self.head_cyl = geo[3]
        return finish

    def _read(self, offset: int, length: int, t: float) -> float:
        hit = self._ra_hit(offset, length, t)
        if hit is not None:
            return hit
        self._ra_stop(t)
        geo = self.locate(offset, length)
        finish = self._media(False, geo, t)
        end = offset + length
        self.ra_lo, self.ra_base, self.ra_time = offset, end, finish
        self.ra_limit = end + self.model.read_ahead_bytes
        self.ra_rate = geo[4] if self.model.read_ahead_bytes > 0 else 0.0
        return finish


def _zoned() -> DiskModel:
    zones = ((0.0, 210.0), (0.3, 180.0), (0.6, 140.0), (0.85, 100.0))
    return get_model("class-7200-desktop").with_changes(zones=zones)


WORKLOADS: list[tuple[str, list[StreamSpec], dict[str, Any]]] = [
    ("st4000vn006", [StreamSpec("randread", (0.0, 1.0), 8192, 16)], {}),
    ("st4000vn006", [StreamSpec("randread", (0.0, 1.0), 8192, 32)], {}),
    ("class-15k", [StreamSpec("randread", (0.0, 0.0025), 4096, 16)], {"sptf_margin_ms": 0.0}),
    ("cheetah-9lp", [StreamSpec("randread", (0.0, 1.0), 512, 12, think_ms=0.0)], {"sptf_margin_ms": 3.0}),
    ("barracuda-st32171w", [StreamSpec("randread", (0.0, 1e-5), 512, 8)], {}),  # repeated offsets
    ("zoned", [StreamSpec("randread", (0.0, 1.0), 8192, 16)], {}),
    ("class-10k", [StreamSpec("randwrite", (0.0, 1.0), 8192, 8)], {}),
    ("st4000vn006", [StreamSpec("read", (0.0, 1.0), 65536, 4), StreamSpec("randread", (0.0, 1.0), 4096, 4)], {}),
    (
        "st4000vn006",
        [StreamSpec("randwrite", (0.0, 0.1), 8192, 4, flush_every=8), StreamSpec("randread", (0.2, 0.5), 8192, 4)],
        {},
    ),
    (
        "class-7200-desktop",
        [
            StreamSpec("randread", predict.OUTER, 8192, 3, weight=1.0),
            StreamSpec("randwrite", predict.INNER, 4096, 2, weight=2.0),
        ],
        {"write_cache": "off"},
    ),
]


@pytest.mark.parametrize(("preset", "streams", "options"), WORKLOADS)
def test_simulation_matches_the_reference(
    monkeypatch: pytest.MonkeyPatch, preset: str, streams: list[StreamSpec], options: dict[str, Any]
) -> None:
    model = _zoned() if preset == "zoned" else get_model(preset)
    fast = simulate(model, streams, ios=2500, seed=3, **options)
    monkeypatch.setattr(simulate_module, "Mechanism", Reference)
    plain = simulate(model, streams, ios=2500, seed=3, **options)
    assert dataclasses.astuple(fast) == dataclasses.astuple(plain)


@dataclasses.dataclass(frozen=True)
class ForeignIO:
    """A queued IO of another class with the fields of Request (as the emulator has)."""

    op: str
    offset_bytes: int
    length_bytes: int
    submitted_s: float
    tag: int


@pytest.mark.parametrize("mode", ["off", "volatile", "lying"])
@pytest.mark.parametrize("preset", ["st4000vn006", "cheetah-9lp"])
def test_choices_match_the_reference_on_random_queues(preset: str, mode: str) -> None:
    model = get_model(preset)
    fast = Mechanism(model, seed=5, write_cache=mode)  # type: ignore[arg-type]
    plain = Reference(model, seed=5, write_cache=mode)  # type: ignore[arg-type]
    rnd = random.Random(f"{preset}/{mode}")
    now = 0.0
    pending: list[Any] = []
    blocks = model.capacity_bytes // 4096 - 300
    for step in range(1500):
        while len(pending) < rnd.choice([2, 5, 16, 32]):
            op = rnd.choice(["read"] * 6 + ["write"] * 3 + ["flush"])
            offset = rnd.randrange(blocks) * 4096
            if pending and rnd.random() < 0.2:  # continues or repeats a queued one
                offset = pending[-1].offset_bytes + rnd.choice([0, pending[-1].length_bytes])
            kind = Request if rnd.random() < 0.5 else ForeignIO
            pending.append(kind(op, offset, rnd.choice([512, 4096, 65536]), now - rnd.random() * 0.7, step))
        chosen = fast.choose(pending, now)
        assert chosen == plain.choose(pending, now)
        reads = [r for r in pending if r.op == "read"]
        if len(reads) > 1:
            columns = [fast.locate(r.offset_bytes, r.length_bytes) for r in reads]
            offsets = sorted(r.offset_bytes for r in reads)
            cyls, angles = [g[0] for g in columns], [g[1] for g in columns]
            quick = fast.choose_reads(cyls, angles, [r.submitted_s for r in reads], offsets, now)
            assert quick is None or quick == plain.choose(reads, now)
        req = pending.pop(chosen)
        start = now + rnd.random() * 0.002
        finish = fast.service(req.op, req.offset_bytes, req.length_bytes, start)
        assert finish == plain.service(req.op, req.offset_bytes, req.length_bytes, start)
        now = finish


def _seek_inline(mech: Mechanism, distance: int) -> float:
    """The seek the SPTF loop priced before the table existed (s)."""
    if not distance:
        return 0.0
    grid, steps = mech._grid, mech._steps
    pos = math.sqrt(abs(distance) * (1.0 / mech.cylinders)) * steps
    k = int(pos)
    ms = grid[k] + (pos - k) * (grid[k + 1] - grid[k]) if k < steps else grid[steps]
    return (ms if ms > mech._seek_min else mech._seek_min) / 1000.0


@pytest.mark.parametrize("preset", preset_names())
def test_seek_table_is_bit_identical_to_the_inline_curve(preset: str) -> None:
    mech = Mechanism(get_model(preset))
    table = seek_table(mech._grid, mech._steps, mech._seek_min, mech.cylinders, mech.t_rev)
    cylinders = mech.cylinders
    every = cylinders < 20_000 or preset == "st4000vn006"
    distances = range(-cylinders + 1, cylinders) if every else random.Random(preset).sample(range(cylinders), 4000)
    for d in distances:
        seek = _seek_inline(mech, d)
        assert table[2 * d] == seek and table[2 * d + 1] == seek / mech.t_rev, d


def test_pruning_bounds_hold() -> None:
    """Every distance outside window j prices a seek above that window's bound."""
    mech = Mechanism(get_model("st4000vn006"))
    chooser = mech.read_chooser()
    assert chooser is mech.read_chooser()  # built once per drive
    rnd = random.Random(1)
    assert chooser.reach[-1] == mech.cylinders and chooser.bound[-1] == math.inf
    for j in range(0, chooser.steps, 7):
        reach, bound = chooser.reach[j], chooser.bound[j]
        for d in [reach + 1, reach + 2, *rnd.sample(range(reach + 1, mech.cylinders), 20)]:
            if d < mech.cylinders:
                assert _seek_inline(mech, d) + mech.margin > bound


@pytest.mark.parametrize("model", [get_model("st4000vn006"), _zoned()], ids=["formula", "zones"])
def test_stroke_written_out_matches_the_model(model: DiskModel) -> None:
    mech = Mechanism(model)
    rnd = random.Random(2)
    for x in [0.0, 1.0, *(rnd.random() for _ in range(5000))]:
        if mech._stroke_inline:
            inner = 1.0 - mech._stroke_c * x
            u = (1.0 - math.sqrt(inner if inner > 0.0 else 0.0)) / mech._stroke_k
        else:
            u = mech._stroke(x)
        assert u == model.stroke(x)


def test_same_seed_same_figures() -> None:
    model = get_model("st4000vn006")
    streams = [StreamSpec("randread", (0.0, 1.0), 8192, 16)]
    assert simulate(model, streams, ios=3000, seed=9) == simulate(model, streams, ios=3000, seed=9)


def test_only_the_mechanism_touches_its_private_state() -> None:
    """The chooser and the simulator use Mechanism's methods and public state, never its `_` fields."""
    import ast
    from pathlib import Path

    import advisor.disk.sptf as sptf_module

    for module in (sptf_module, simulate_module):
        tree = ast.parse(Path(str(module.__file__)).read_text())
        private = [ast.unparse(node) for node in ast.walk(tree)
                   if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                   and "mech" in ast.unparse(node.value)]
        assert not private, (module.__name__, private)
