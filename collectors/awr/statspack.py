"""Statspack text reports (spreport.sql): the free report, with a per-file read histogram.

Same SQL*Plus grids as the AWR text report, plus ``Mx Rd Bkt`` in File IO Stats and the
File Read Histogram Stats section: per data file, single-block reads in the buckets
0-2, 2-4, 4-8, 8-16, 16-32 and 32+ ms (temp files are not included).
"""

from __future__ import annotations

from advisor.collectors.awr import histograms, segments, text, text_report
from advisor.collectors.awr.sections import ReportData, optional_section

HISTOGRAM_TITLE = "File Read Histogram Stats"
BUCKET_BOUNDS_MS = ((0.0, 2.0), (2.0, 4.0), (4.0, 8.0), (8.0, 16.0), (16.0, 32.0), (32.0, None))


def read_statspack(report: str, path: str) -> ReportData:
    """A Statspack text report."""
    data = ReportData(kind="statspack", path=path)
    text_report.header_facts(report, data)
    found = text.sections(report)
    text_report.io_sections(found, data)
    text_report.filetype_section(found, data)
    text_report.events(found, ("Wait Events", "Foreground Wait Events", "Background Wait Events"), data)
    text_report.wait_classes(found, data)
    optional_section(data, "Wait Event Histogram", lambda: histograms.from_text(found, data))
    segments.text_sections(found, data)
    if HISTOGRAM_TITLE in found:
        optional_section(data, HISTOGRAM_TITLE, lambda: _file_histogram(found[HISTOGRAM_TITLE], data))
    return data


def _file_histogram(section: text.Section, data: ReportData) -> None:
    """File Read Histogram Stats: per data file, single-block reads per bucket (all rows or none)."""
    table = text.grid(section)
    read: dict[str, list[float]] = {}
    for _, filename, row in text.file_grid_rows(table):
        read[filename] = [text.value(row, key, HISTOGRAM_TITLE) or 0.0 for key in table.columns]
    data.histogram.update(read)


def histogram_bounds_ms(counts: list[float]) -> tuple[float, float | None] | None:
    """Lower and upper bounds of the mean single-block read time implied by the buckets.

    The 32+ ms bucket has no upper bound, so the upper bound is None when it is not empty.
    """
    total = sum(counts)
    if not total:
        return None
    low = sum(c * b[0] for c, b in zip(counts, BUCKET_BOUNDS_MS, strict=False)) / total
    if counts[-1]:
        return low, None
    high = sum(c * (b[1] or 0.0) for c, b in zip(counts, BUCKET_BOUNDS_MS, strict=False)) / total
    return low, high
