"""The replay of a traced workload in every format: one headline per disk, a table per area, one
per issuer (database or server process) where the trace names its processes, and one of the
databases' rates (their sessions' work per second).

The headline says the self-check (replayed against measured, the tolerance, whether the
model fits) and, under a plan, the replayed gain (± its standard error over windows of the
trace) beside the aggregate model's, each with the lowest and highest of a single rotational
phase when several were replayed; a refused
trace says why in its one line. Figures only: the engine computed them
(:mod:`advisor.engine.replay_check`).
"""

from __future__ import annotations

from advisor.model import ReplayArea, ReplayCheck, Report

AREA_HEADERS = ("area", "requests", "measured ms", "replayed ms", "replayed vs measured", "planned ms",
                "time saved")
ISSUER_HEADERS = ("issued by", "processes", "requests", "measured ms", "replayed ms", "replayed vs measured",
                  "planned ms", "planned vs today", "behind a flush, ms")
RATE_HEADERS = ("database", "sessions", "measured /s", "replayed /s", "replayed vs measured", "planned /s",
                "planned vs today", "waiting on others' clocks")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _phases(check: ReplayCheck, low: float | None, high: float | None) -> str:
    """``; 8 phases -2.0% to +28.0%``: the spread of one phase's figure, or nothing for one phase."""
    if check.phases is None or check.phases < 2 or low is None or high is None:
        return ""
    return f"; {check.phases} phases {low:+.1%} to {high:+.1%}"


def _error(check: ReplayCheck) -> str:
    """`` ± 1.2 %``: the gain's standard error over windows of the trace, or nothing where unknown."""
    return "" if check.gain_error is None else f" ± {check.gain_error:.1%}"


def headlines(check: ReplayCheck) -> list[str]:
    """What the replay of one disk found, in one or two lines (three for a disk with a queue)."""
    if check.refused is not None:
        return [f"replay: {check.refused}"]
    if check.basis == "busy time":
        return _busy_headlines(check)
    verdict = "the model fits" if check.fits else "MODEL_DOES_NOT_FIT"
    deviation = "-" if check.deviation is None else f"{check.deviation:+.1%}"
    spread = _phases(check, check.deviation_low, check.deviation_high)
    lines = [f"replay of {check.disk}: {check.requests:,} traced requests, at most {check.queue_depth} in flight; "
             f"measured {_ms(check.measured_ms)} ms, replayed today {_ms(check.replayed_ms)} ms "
             f"({deviation}{spread}, tolerance ±{check.tolerance:.0%}): {verdict}"]
    if check.planned_ms is not None:
        gain = ("-" if check.predicted_gain is None else f"{check.predicted_gain:.1%}{_error(check)} faster"
                if check.predicted_gain >= 0 else f"{-check.predicted_gain:.1%}{_error(check)} slower")
        gain += _phases(check, check.gain_low, check.gain_high)
        aggregate = "-" if check.aggregate_gain is None else f"{check.aggregate_gain:.1%}"
        span = ""
        if check.replayed_span_s is not None and check.planned_span_s is not None:
            span = f"; the traced work {check.replayed_span_s:.1f} s -> {check.planned_span_s:.1f} s"
        lines.append(f"replay under the plan ({check.disk}): {_ms(check.replayed_ms)} -> {_ms(check.planned_ms)} ms, "
                     f"{gain} (aggregate model: {aggregate}){span}")
    return lines


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


def _busy_headlines(check: ReplayCheck) -> list[str]:
    """A disk with a queue: judged by the replayed drive's busy time against the measured one."""
    verdict = "the model fits" if check.fits else "MODEL_DOES_NOT_FIT"
    busy = "-" if check.busy_deviation is None else f"{check.busy_deviation:+.1%}"
    share = ("" if check.traced_busy is None or check.mean_in_flight is None else
             f" (busy {check.traced_busy:.0%} of the traced span, {check.mean_in_flight:.1f} requests in flight)")
    deviation = "-" if check.deviation is None else f"{check.deviation:+.1%}"
    lines = [f"replay of {check.disk}, a queue{share}: {check.requests:,} traced requests keep the drive busy "
             f"{_s(check.replayed_busy_s)} replayed, {_s(check.measured_busy_s)} measured ({busy}, tolerance "
             f"±{check.tolerance:.0%}): {verdict}",
             f"  per request (not judged where the disk had a queue): measured {_ms(check.measured_ms)} ms, replayed "
             f"{_ms(check.replayed_ms)} ms ({deviation}{_phases(check, check.deviation_low, check.deviation_high)}), "
             f"at most {check.queue_depth} in flight"]
    if check.planned_ms is not None:
        aggregate = "-" if check.aggregate_gain is None else f"{check.aggregate_gain:.1%}"
        per_request = "-" if check.request_gain is None else f"{check.request_gain:.1%}"
        gain = "-" if check.predicted_gain is None else f"{check.predicted_gain:.1%}{_error(check)}"
        lines.append(f"replay under the plan ({check.disk}): the drive busy {_s(check.replayed_busy_s)} -> "
                     f"{_s(check.planned_busy_s)} for the same work, {gain} less time per unit of work"
                     f"{_phases(check, check.gain_low, check.gain_high)} (per request {_ms(check.replayed_ms)} -> "
                     f"{_ms(check.planned_ms)} ms, {per_request}; aggregate model: {aggregate})")
    return lines


def report_headlines(report: Report) -> list[str]:
    """The headlines of every disk replayed."""
    return [line for check in report.replay for line in headlines(check)]


def area_rows(check: ReplayCheck) -> list[tuple[str, ...]]:
    """One row per area of a replayed disk (AREA_HEADERS)."""
    return [(a.area, f"{a.requests:,}", _ms(a.measured_ms), _ms(a.replayed_ms), _fit(a), _planned(a), _saved(a))
            for a in check.areas]


def _saved(area: ReplayArea) -> str:
    """The area's time saved under the plan, ``of measured`` where it starts from the measured time because
    the area's self-check missed (:func:`advisor.engine.replay_area_gain.area_saved`)."""
    if area.predicted_gain is None:
        return "-"
    return f"{area.predicted_gain:+.0%}" + (" of measured" if area.gain_from == "measured" else "")


def _planned(area: ReplayArea) -> str:
    """The area's planned time, and NO PREDICTION where its gain depends on the platter's phase or on the
    commits of other databases it waits behind (the report's notes say why)."""
    if area.steady is False and area.phase_spread is not None:
        return f"{_ms(area.planned_ms)} NO PREDICTION (±{area.phase_spread:.0%} by phase)"
    if area.barrier_free is False and area.behind_commits is not None:
        return f"{_ms(area.planned_ms)} NO PREDICTION ({area.behind_commits:.0%} behind commits)"
    return _ms(area.planned_ms)


def issuer_table_rows(check: ReplayCheck) -> list[tuple[str, ...]]:
    """One row per issuer of a replayed disk (ISSUER_HEADERS): a database, a server process serving none (its
    role: "checkpointer"), or "not named" (the kernel's threads, a connection not seen while sampling); the
    last column the share of its requests issued behind a cache flush and their wait for it per request."""
    rows: list[tuple[str, ...]] = []
    for who in check.issuers:
        change = ("-" if who.planned_ms is None or not who.replayed_ms
                  else f"{who.planned_ms / who.replayed_ms - 1.0:+.1%}")
        deviation = "-" if who.deviation is None else f"{who.deviation:+.0%}"
        behind = ("-" if who.behind_flush is None or who.flush_wait_ms is None
                  else f"{who.behind_flush:.0%} {who.flush_wait_ms:.1f}")
        if who.barrier_free is False:  # its requests wait on other databases' commits (the notes say why)
            change += " NO PREDICTION"
        rows.append((who.issuer, f"{who.processes}", f"{who.requests:,}", _ms(who.measured_ms), _ms(who.replayed_ms),
                     deviation, _ms(who.planned_ms), change, behind))
    return rows


def rate_table_rows(check: ReplayCheck) -> list[tuple[str, ...]]:
    """One row per database with rates (RATE_HEADERS): its requests per session-second measured, replayed today
    (against the measured: the loops' self-check) and planned (against today's: the work its sessions would do
    in the same time, NO PREDICTION where the disk's rates are not predicted, MORE or LESS where a disk several
    databases share gives only the direction, NO DIRECTION beside them for a change within the replay's
    error), and the share of its sessions'
    time spent waiting for requests on a clock of their own (the journal's, the page writeback's), as traced
    and replayed under the plan."""
    def change(new: float | None, old: float | None) -> str:
        return "-" if new is None or not old else f"{new / old - 1.0:+.1%}"

    def rate(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    rows: list[tuple[str, ...]] = []
    directed = any(who.rate_direction is not None for who in check.issuers)  # a shared disk whose loops are sound
    for who in check.issuers:
        if who.measured_rate is None:
            continue
        planned = change(who.planned_rate, who.replayed_rate)
        if who.rate_direction is not None and planned != "-":  # a shared disk: the way it moves, not the figure
            planned += f" {who.rate_direction.upper()}, direction only"
        elif directed and planned != "-":  # the same disk, a change within the replay's error
            planned += " NO DIRECTION"
        elif who.rate_predicted is False and planned != "-":  # a loop on the disk does not close (the notes say whose)
            planned += " NO PREDICTION"
        waits = "-" if who.waits_on_others is None else f"{who.waits_on_others:.0%}"
        if who.planned_waits_on_others is not None:
            waits += f", {who.planned_waits_on_others:.0%} planned"
        rows.append((who.issuer, f"{who.processes}", rate(who.measured_rate), rate(who.replayed_rate),
                     change(who.replayed_rate, who.measured_rate), rate(who.planned_rate), planned, waits))
    return rows


def disk_tables(check: ReplayCheck) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    """The tables of one replayed disk that have rows, each (its title, its headers, its rows): its areas, whose
    requests they were, and the databases' rates. Every format shows these, each its own way."""
    tables = [("Replay of the traced requests", AREA_HEADERS, area_rows(check)),
              ("Whose requests", ISSUER_HEADERS, issuer_table_rows(check)),
              ("The databases' rates, requests per session-second", RATE_HEADERS, rate_table_rows(check))]
    return [table for table in tables if table[2]]


def table_heading(disk: str, title: str) -> str:
    """A document's heading of one of :func:`disk_tables`: the disk alone for its areas, else the disk and what
    the table shows (``sda: whose requests``)."""
    return disk if title == "Replay of the traced requests" else f"{disk}: {title[0].lower()}{title[1:]}"


def _fit(area: ReplayArea) -> str:
    """The area's own self-check: its deviation, and DOES NOT FIT beyond the check's tolerance."""
    if area.deviation is None:
        return "-"
    return f"{area.deviation:+.0%}" + (" DOES NOT FIT" if area.fits is False else "")


def notes(report: Report) -> list[str]:
    """What of each trace was unsound and how the replay dealt with it."""
    return [note for check in report.replay for note in check.notes]
