"""The order of moves that reaches the planned partitions through the disk's own free space.

With no spare, the planned partitions are reached a few at a time on the disk itself. The
state is today's partitions (each with the areas it holds), the planned ones already made,
and where each area is; the loop repeats, in this order of preference:

1. **create** every planned partition whose span no live old partition overlaps (it lies
   in unpartitioned space, or in the span of old partitions already dropped);
2. **move** the areas whose planned partition exists into it;
3. **drop** the old partitions that no longer hold an area of the database;
4. when none of that is possible (every planned partition still to make overlaps an old
   partition that holds data), **hold**: the old partition in the way that holds the fewest
   bytes is emptied into the free space inside another old partition's file system
   (preferring one no planned partition still waits for) or inside a planned partition
   already made (its headroom), whichever has the most room.

The free space inside an old file system is its size less what the database keeps there
(the snapshot has no ``df`` of it), less :data:`FS_RESERVE`: an upper bound, which the
step's own check measures (``df``) before it moves anything. When no old partition has room
for the partition to empty, no order of moves fits and the plan is refused with the space
that the hold needs. Partition numbers of today's partitions stay as they are while they
are mounted; a new partition takes the lowest number the table does not use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from advisor.engine.scripts.sfdisk import GPT_TAIL_BYTES, align_up
from advisor.errors import BadInput
from advisor.model import Partition, PlannedPartition
from advisor.units import MIB

FS_RESERVE = 0.05
"""The share of an old file system counted as unusable for a hold (ext4's own metadata, and
room for a relation being copied, which exists twice until its copy commits)."""

HOLD_ROOM = 1.1
"""A hold needs the bytes it moves plus 10 %, as a spare does."""

StepKind = Literal["create", "move", "drop", "hold"]


@dataclass(frozen=True, slots=True)
class NewPartition:
    """A planned partition as it is written into the table: aligned span, its number there."""

    label: str
    number: int
    start_bytes: int
    size_bytes: int
    areas: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AreaMove:
    """One area moving from *source* (a mount point) to *target* (a mount point)."""

    area: str
    size_bytes: int
    source: str
    target: str
    target_label: str  # the planned partition's label, or the old partition it is held in


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the order: what it makes, moves or drops."""

    kind: StepKind
    created: tuple[NewPartition, ...] = ()
    moves: tuple[AreaMove, ...] = ()
    dropped: tuple[Partition, ...] = ()


@dataclass(slots=True)
class _State:
    live: dict[int, Partition]
    held_in: dict[str, str]  # area -> mount point where it is now
    made: dict[str, NewPartition] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)


def _span(start: int, size: int) -> tuple[int, int]:
    return start, start + size


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _aligned(part: PlannedPartition) -> tuple[int, int]:
    """The span the sfdisk file gives *part* (start at least 1 MiB, both rounded up to 1 MiB)."""
    return max(MIB, align_up(part.start_bytes)), align_up(part.size_bytes)


def room_in(part: Partition, held_bytes: int) -> int:
    """The free space a hold may count on in *part*'s file system holding *held_bytes* of the database."""
    return max(0, int(part.size_bytes * (1 - FS_RESERVE)) - held_bytes)


def _free_number(state: _State) -> int:
    used = set(state.live) | {p.number for p in state.made.values()}
    return next(n for n in range(1, 129) if n not in used)


def order_moves(disk_bytes: int, old: Sequence[Partition], planned: Sequence[PlannedPartition],
                sizes: dict[str, int], where: dict[str, int], mount_of_label: dict[str, str],
                target_of: dict[str, str]) -> list[Step]:
    """The steps from *old* partitions to *planned* ones, or :class:`BadInput` with the space needed.

    *sizes* and *where* give each area's bytes and the number of the old partition holding
    it; *target_of* its planned partition's label; *mount_of_label* where each planned
    partition is mounted.
    """
    spans = {p.label: _aligned(p) for p in planned}
    for part in planned:
        start, size = spans[part.label]
        if start + size > disk_bytes - GPT_TAIL_BYTES:
            raise BadInput(f"--in-place: planned partition {part.label} ends past the disk's last usable byte")
    mount_of_old = {p.number: (p.mountpoints[0] if p.mountpoints else "") for p in old}
    for number in set(where.values()):
        if not mount_of_old.get(number):
            raise BadInput(f"--in-place: partition {number} holds areas of the database but is not mounted")
    state = _State(live={p.number: p for p in old}, held_in={a: mount_of_old[n] for a, n in where.items()})
    todo = sorted(planned, key=lambda p: spans[p.label][0])
    for _ in range(4 * (len(old) + len(planned) + len(sizes)) + 4):
        if not todo and all(state.held_in[a] == mount_of_label[target_of[a]] for a in sizes) and not state.live:
            return state.steps
        progressed = _create(state, todo, spans) | _move_in(state, sizes, target_of, mount_of_label)
        progressed |= _drop_empty(state, mount_of_old)
        if not progressed:
            _hold(state, todo, spans, sizes, mount_of_old, mount_of_label)
    raise BadInput("--in-place: no order of moves converges on the planned partitions; name a spare (--spare DIR)")


def _create(state: _State, todo: list[PlannedPartition], spans: dict[str, tuple[int, int]]) -> bool:
    live_spans = [_span(p.start_bytes, p.size_bytes) for p in state.live.values()]
    ready = [p for p in todo if not any(_overlaps(_span(*spans[p.label]), s) for s in live_spans)]
    made = []
    for part in ready:
        new = NewPartition(part.label, _free_number(state), *spans[part.label], part.areas)
        state.made[part.label] = new
        made.append(new)
        todo.remove(part)
    if made:
        state.steps.append(Step("create", created=tuple(made)))
    return bool(made)


def _move_in(state: _State, sizes: dict[str, int], target_of: dict[str, str], mount_of_label: dict[str, str]) -> bool:
    moves = [AreaMove(a, sizes[a], state.held_in[a], mount_of_label[target_of[a]], target_of[a])
             for a in sorted(sizes) if target_of[a] in state.made and state.held_in[a] != mount_of_label[target_of[a]]]
    for move in moves:
        state.held_in[move.area] = move.target
    for target in sorted({m.target_label for m in moves}):  # one step per planned partition: its own room check
        state.steps.append(Step("move", moves=tuple(m for m in moves if m.target_label == target)))
    return bool(moves)


def _bytes_in(state: _State, mount: str, sizes: dict[str, int]) -> int:
    return sum(sizes[a] for a, where in state.held_in.items() if where == mount)


def _drop_empty(state: _State, mount_of_old: dict[int, str]) -> bool:
    holding = set(state.held_in.values())
    empty = [p for n, p in sorted(state.live.items()) if mount_of_old[n] not in holding]
    for part in empty:
        del state.live[part.number]
    if empty:
        state.steps.append(Step("drop", dropped=tuple(empty)))
    return bool(empty)


def _hold(state: _State, todo: list[PlannedPartition], spans: dict[str, tuple[int, int]], sizes: dict[str, int],
          mount_of_old: dict[int, str], mount_of_label: dict[str, str]) -> None:
    """Empty the old partition in the way that holds the least into free space elsewhere on the disk."""
    waiting = [_span(*spans[p.label]) for p in todo]

    def in_the_way(part: Partition) -> bool:
        return any(_overlaps(_span(part.start_bytes, part.size_bytes), s) for s in waiting)

    def hosts(victim: Partition) -> list[tuple[bool, int, str, str]]:
        """(in the way, room, mount, name) of each place a hold may use: old partitions, then the new ones made."""
        old = [(in_the_way(p), room_in(p, _bytes_in(state, mount_of_old[p.number], sizes)), mount_of_old[p.number],
                p.name) for p in state.live.values() if p.number != victim.number]
        new = [(False, max(0, int(p.size_bytes * (1 - FS_RESERVE)) - _bytes_in(state, mount_of_label[p.label], sizes)),
                mount_of_label[p.label], p.label) for p in state.made.values()]
        return sorted([*old, *new], key=lambda h: (h[0], -h[1]))

    blockers = sorted((p for p in state.live.values() if in_the_way(p)),
                      key=lambda p: (_bytes_in(state, mount_of_old[p.number], sizes), p.number))
    best: tuple[int, int] | None = None  # (bytes a hold needs, the most room any place has for it)
    for victim in blockers:
        need = int(_bytes_in(state, mount_of_old[victim.number], sizes) * HOLD_ROOM)
        places = hosts(victim)
        host = next((h for h in places if h[1] >= need), None)
        if host is None:
            most = max((h[1] for h in places), default=0)
            best = (need, most) if best is None or need < best[0] else best
            continue
        source = mount_of_old[victim.number]
        moves = tuple(AreaMove(a, sizes[a], source, host[2], host[3])
                      for a in sorted(sizes) if state.held_in[a] == source)
        for move in moves:
            state.held_in[move.area] = host[2]
        state.steps.append(Step("hold", moves=moves))
        return
    need, most = best or (0, 0)
    raise BadInput(f"--in-place: no order of moves fits on the disk: emptying a partition in the way of the plan needs "
                   f"{need / (1 << 30):,.2f} GiB free elsewhere on it, the most any other partition has is "
                   f"{most / (1 << 30):,.2f} GiB; name a spare directory on another disk (--spare DIR)")
