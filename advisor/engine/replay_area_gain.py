"""Each area's time saved under the plan, and what the replay says of an area it does not describe.

The disk's self-check compares the mean of all its requests (:mod:`advisor.engine.replay_today`);
each area has its own too (``ReplayArea.deviation``, ``fits``). An area's time saved is
1 - planned / today. Where its self-check fits, today is its replayed time, so the model's bias
cancels; where it misses, the measured one, since the miss is then mostly a state of today's
layout the replay does not reproduce (the accuracy suite's mixed scan, docs/accuracy.md "After
run 40"), and the area's note gives the figure from the replayed time beside it.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.engine.replay_today import REPLAY_TOLERANCE, SelfCheck
from advisor.engine.saturation import BUSY_MIN
from advisor.model import ReplayArea
from advisor.model.report import GainBase

AREA_WEIGHT_NOTED = 0.1
"""An area holding this share of the disk's measured time or more is named when the replay misjudges it."""


def area_self_check(measured_ms: float, replayed_ms: float) -> tuple[float | None, bool | None]:
    """An area's own self-check: replayed / measured - 1, and whether it is within the replay's tolerance;
    (None, None) without a measured time.

    >>> area_self_check(20.0, 10.94), area_self_check(10.0, 11.0), area_self_check(0.0, 3.0)
    ((-0.453, False), (0.1, True), (None, None))
    """
    if measured_ms <= 0:
        return None, None
    deviation = round(replayed_ms / measured_ms - 1.0, 4)
    return deviation, abs(deviation) <= REPLAY_TOLERANCE


def area_saved(measured_ms: float, replayed_ms: float, planned_ms: float | None,
               fits: bool | None) -> tuple[float | None, GainBase | None]:
    """An area's time saved under the plan, 1 - planned / today, and which today it starts from.

    Where the area's self-check fits, today is its replayed time: replayed today and under the plan
    alike, the model's bias cancels. Where it does not, the replay did not reproduce what the area
    took today (the accuracy suite's mixed scan: measured 19-23 ms while the drive kept the head at
    the OLTP table's edge, replayed 11-13), and the measured time is the better start: over runs
    31-40, 20 such areas missed the gain at the block layer by 9.9 points (root mean square) from the
    measured time and by 20.2 from the replayed one, while the 147 that fit missed by 6.5 from the
    replayed and 7.5 from the measured (docs/accuracy.md, "After run 40").

    >>> area_saved(20.0, 12.0, 8.0, False), area_saved(20.0, 19.0, 9.5, True), area_saved(5.0, 5.0, None, True)
    ((0.6, 'measured'), (0.5, 'replayed'), (None, None))
    """
    if planned_ms is None:
        return None, None
    base: GainBase = "measured" if fits is False else "replayed"
    today = measured_ms if base == "measured" else replayed_ms
    return (round(1.0 - planned_ms / today, 4), base) if today > 0 else (None, None)


def misfit_notes(checked: SelfCheck, rows: Sequence[ReplayArea]) -> tuple[str, ...]:
    """A note per area of weight whose replayed time misses its measured time beyond the tolerance, on a
    disk whose self-check fits (MODEL_DOES_NOT_FIT says it of every area on one that does not).

    The disk's self-check compares the mean of every request; an area can miss while the mean
    fits, and its gain then starts from its measured time (:func:`area_saved`), which the note
    says with the figures. On a saturated disk it weighs more: the
    areas share one queue, and the replay keeps each area's traced requests, so it cannot say
    which area takes the time a faster layout frees (docs/report.md)."""
    total = sum(r.measured_ms * r.requests for r in rows)
    if not checked.fits:  # the disk's own misfit says it for every area
        return ()
    queue = (f"; the disk is saturated (busy {checked.busy:.0%} of the traced span), so the areas share its queue "
             "and the replay cannot say which of them takes the time a faster layout frees"
             if checked.busy is not None and checked.busy >= BUSY_MIN else "")
    notes = []
    for row in rows:
        if row.fits is not False or total <= 0 or row.measured_ms * row.requests / total < AREA_WEIGHT_NOTED:
            continue
        assert row.deviation is not None  # fits is only False with a deviation
        notes.append(
            f"{row.area}: replayed {row.replayed_ms:.2f} ms per request, measured {row.measured_ms:.2f} ms "
            f"({row.deviation:+.0%}, tolerance ±{REPLAY_TOLERANCE:.0%}): the model does not describe this area's "
            f"requests today{_from_measured(row)}" + queue)
    return tuple(notes)


def _from_measured(row: ReplayArea) -> str:
    """What an area that misses its self-check is still given: its planned time against its measured one, and
    against its replayed one beside it (where the model's bias today carries into the plan, as the accuracy
    suite's catalogue behind other databases' commits did, that one is nearer: the two bound what is known)."""
    from_replayed, _ = area_saved(row.measured_ms, row.replayed_ms, row.planned_ms, True)
    if row.predicted_gain is None or row.planned_ms is None or from_replayed is None:
        return ""
    return (f", so its gain under the plan ({row.predicted_gain:+.0%}) is its planned {row.planned_ms:.2f} ms against "
            f"the {row.measured_ms:.2f} ms measured ({from_replayed:+.0%} against the "
            f"{row.replayed_ms:.2f} ms replayed), less certain than a fitting area's")
