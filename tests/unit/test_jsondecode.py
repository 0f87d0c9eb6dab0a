"""The compiled decoders read exactly what the generic walk reads, with the same errors.

Documents are mutated at random leaves (wrong types, nulls, missing and extra keys, odd
numbers) and each one is decoded both ways: either both refuse it with the same message, or
both build the same objects, down to int versus float.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from advisor.errors import BadInput
from advisor.jsonio import _walk, from_jsonable, to_jsonable
from advisor.model import DiskProfile, Latency, Report, Snapshot, Workload, ZonePoint
from tests.render.conftest import sample_workload
from tests.unit.test_model_json import _big_snapshot

ODD_VALUES: list[Any] = [None, 0, 1, -3, 2.5, float(1 << 60), True, False, "", "x", "12", [], [1], {}, {"a": 1}]


def _leaves(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            out.extend(_leaves(value, (*path, key)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out.extend(_leaves(value, (*path, i)))
    return out


def _mutate(data: Any, rng: random.Random) -> Any:
    data = copy.deepcopy(data)
    path = rng.choice(_leaves(data)[1:])
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = rng.random()
    if isinstance(parent, dict) and action < 0.15:
        del parent[last]
    elif isinstance(parent, dict) and action < 0.25:
        parent[f"extra_{last}"] = 1
    elif isinstance(parent, dict) and action < 0.3:
        parent[" 7"] = parent.pop(last)  # a key int() accepts but that is not a field
    else:
        parent[last] = rng.choice(ODD_VALUES)
    return data


def _outcome(decode: Any, cls: type, data: Any) -> tuple[str, str]:
    try:
        value = decode(cls, data)
    except BadInput as exc:
        return "refused", exc.message
    return "built", repr(value)


def _documents() -> list[tuple[type, Any]]:
    from advisor.engine.advise import advise
    from tests.engine.synth import models

    report = advise(sample_workload(), models())
    profile = DiskProfile("/dev/loop0", "loop0", 1 << 30, "2026-11-21T09:00:00+00:00", "builtin", 4096,
                          zones=(ZonePoint(0.0, 120.0), ZonePoint(1.0, 60.5)), qd_iops={1: 80.0, 16: 210.0},
                          qd_latency={1: Latency(12.0, 11.0, 30.0)})
    return [(Snapshot, _big_snapshot(4)), (Workload, sample_workload()), (Report, report), (DiskProfile, profile)]


@pytest.mark.parametrize(("cls", "document"), _documents(), ids=lambda x: getattr(x, "__name__", ""))
def test_fast_and_generic_decoding_agree_on_mutated_documents(cls: type, document: Any) -> None:
    data = to_jsonable(document)
    assert from_jsonable(cls, data) == document  # the unmutated document round-trips
    rng = random.Random(f"{cls.__name__}-2026")
    refused = 0
    for _ in range(300):
        mutated = _mutate(data, rng)
        fast = _outcome(lambda c, d: from_jsonable(c, d, "$"), cls, mutated)
        slow = _outcome(lambda c, d: _walk(c, d, "$"), cls, mutated)
        assert fast == slow, mutated
        refused += fast[0] == "refused"
    assert 30 < refused < 300  # the mutations exercised both outcomes


def test_integer_keys_that_are_not_integers_are_refused_not_crashed() -> None:
    data = to_jsonable(DiskProfile("/dev/loop0", "loop0", 1 << 30, "t", "builtin", 4096, qd_iops={1: 80.0}))
    data["qd_iops"] = {"one": 80.0}
    with pytest.raises(BadInput, match="qd_iops: expected an integer key"):
        from_jsonable(DiskProfile, data)
