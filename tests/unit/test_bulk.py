"""The fast constructor builds the same frozen objects as the dataclass itself."""

from __future__ import annotations

import dataclasses

import pytest

from advisor.bulk import slot_constructor
from advisor.model import FileIO, new_file_io


def test_fast_file_io_equals_the_class_built_one() -> None:
    args = ("db/1", "/d/1", "data", "ts", "db", 8192, 3, None, 24576, None)
    fast = new_file_io(*args, read_time_ms=1.5, name="public.t", segment_paths=("/d/1.1",))
    slow = FileIO(*args, read_time_ms=1.5, name="public.t", segment_paths=("/d/1.1",))
    assert fast == slow and hash(fast) == hash(slow) and type(fast) is FileIO
    assert new_file_io(*args) == FileIO(*args)  # defaults filled in
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.reads = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        new_file_io(*args, surprise=1)  # type: ignore[call-arg]


@dataclasses.dataclass(frozen=True)
class _NoSlots:
    a: int


@dataclasses.dataclass(frozen=True, slots=True)
class _PostInit:
    a: int

    def __post_init__(self) -> None:
        pass


@dataclasses.dataclass(frozen=True, slots=True)
class _Factory:
    a: list[int] = dataclasses.field(default_factory=list)


@pytest.mark.parametrize("cls", [_NoSlots, _PostInit, _Factory, int])
def test_classes_it_cannot_build_correctly_are_refused(cls: type) -> None:
    with pytest.raises(TypeError):
        slot_constructor(cls)
