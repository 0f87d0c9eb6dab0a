"""Report reader: AWR (HTML or text) and Statspack text reports to a Workload.

Registered as the ``awr`` entry point of ``advisor.collectors``. It reads files, not
databases: ``advisor collect --from-report FILE`` asks each ReportReader ``can_read`` on the
first few KB and calls ``read_report`` on the one that accepts it.
"""

from __future__ import annotations

from pathlib import Path

from advisor.collectors.awr import numbers
from advisor.errors import BadInput
from advisor.model import Workload

__all__ = ["ReportCollector", "detect", "read_report"]


GLOBAL_TITLE = "<title>awr rac report for db:"
"""How a global RAC report (awrgrpt.sql, HTML) starts: one report for every instance of the database."""


def detect(head: str) -> str | None:
    """Which report kind *head* (the first KB of a file) is: awr-html, awr-global, awr-text, statspack or None.

    Case does not matter in the HTML markers (a page re-saved by a browser writes ``<TITLE>``),
    and a UTF-16 head read as UTF-8 (a NUL after every ASCII letter) is recognised too, so the
    reader can decode it instead of calling it no report.
    """
    head = head.replace("\x00", "")
    lowered = head.lower()
    if "STATSPACK report for" in head or "STATSPACK Statistics Report" in head:
        return "statspack"
    if GLOBAL_TITLE in lowered:
        return "awr-global"
    if "WORKLOAD REPOSITORY report for" in head or "<title>awr report for db:" in lowered:
        return "awr-html" if "<html" in lowered or "<title>" in lowered else "awr-text"
    return None


def decoded(raw: bytes) -> str:
    """The report's text: UTF-8, or UTF-16 when the file says so (a BOM, or a NUL after each ASCII byte).

    Line ends are made ``\\n`` (a report saved on Windows has CRLF) and SQL*Plus form feeds are
    dropped (they start each page of a text report on the same line as its first text), so a
    line number in a message is the one an editor shows. The bytes are dropped as soon as they are
    decoded, so a CRLF file's line ends are replaced beside one copy of the text, not two.
    """
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        text = raw.decode("utf-16", errors="replace")
    elif len(raw) >= 4 and raw[1:4:2] == b"\x00\x00" and raw[0:4:2] != b"\x00\x00":
        text = raw.decode("utf-16-le", errors="replace")  # UTF-16 without a BOM: "W\0O\0"
    elif len(raw) >= 4 and raw[0:4:2] == b"\x00\x00" and raw[1:4:2] != b"\x00\x00":
        text = raw.decode("utf-16-be", errors="replace")
    else:
        text = raw.decode("utf-8", errors="replace")
    del raw  # the only reference left (read_report passes the bytes in without keeping them)
    if text[:1] == "\ufeff":
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\f", "") if "\f" in text else text


def read_report(path: str | Path) -> Workload:
    """Parse an AWR or Statspack report file into a workload (BadInput on anything else)."""
    from advisor.collectors.awr.build import build_workload
    from advisor.collectors.awr.globalrac import read_awr_global
    from advisor.collectors.awr.html import read_awr_html
    from advisor.collectors.awr.statspack import read_statspack
    from advisor.collectors.awr.text_report import read_awr_text
    from advisor.model.jsonio import MAX_REPORT_FILE_BYTES, read_regular_file

    # the bytes go straight into decoded(), which drops them once decoded: never held beside the text's copies
    content = decoded(read_regular_file(path, MAX_REPORT_FILE_BYTES, "report"))
    kind = detect(content[:8192])
    if kind is None:
        raise BadInput(f"{path}: not an AWR (HTML or text) or Statspack report "
                       "(expected 'WORKLOAD REPOSITORY report for' or 'STATSPACK report for' near the top)")
    _one_report(content, str(path), kind)
    readers = {"awr-html": read_awr_html, "awr-text": read_awr_text, "statspack": read_statspack,
               "awr-global": read_awr_global}
    with numbers.reading(None) as survey:  # which decimal separator the cells read prove
        data = readers[kind](content, str(path))
    decimal = survey.decide(str(path))
    reading = survey
    if decimal == "," or survey.comma_read:  # the survey read some cells another way: read them all again
        with numbers.reading(decimal) as reading:
            data = readers[kind](content, str(path))
    data.warnings.extend(reading.notes)
    if decimal == ",":
        data.warnings.append("the report prints decimal commas (European NLS settings); numbers read accordingly")
    return build_workload(data)


REPORT_STARTS = ("WORKLOAD REPOSITORY report for", "STATSPACK report for", "STATSPACK Statistics Report",
                 "AWR RAC Report for DB:")


def _one_report(content: str, path: str, kind: str) -> None:
    """Refuse a file holding several reports (spooled one after another) before parsing any.

    Reading only the first would silently drop the rest; one file makes one workload, so
    the user splits the file (docs/awr-import.md shows how) and imports each part.
    """
    marker = max(REPORT_STARTS, key=content.count)  # str.count and find: a 60 MB file in a blink, unlike a regex
    total = content.count(marker)
    if total > 1:
        starts = [content.find(marker)]
        while len(starts) < 3 and (following := content.find(marker, starts[-1] + 1)) >= 0:
            starts.append(following)
        lines = [content.count("\n", 0, start) + 1 for start in starts]
        shown = ", ".join(map(str, lines)) + (", ..." if total > 3 else "")
        pattern = "<html" if kind in ("awr-html", "awr-global") else \
            REPORT_STARTS[1] if kind == "statspack" else REPORT_STARTS[0]
        raise BadInput(f"{path}: the file holds {total} reports (starting at lines {shown}); "
                       "advisor reads one report per file",
                       hint=f"split it, e.g. csplit -z -f report- {path} '/{pattern}/' '{{*}}', and import each part")


class ReportCollector:
    """The ``awr`` plugin: a ReportReader only; it opens no session (see advisor.collect.registry)."""

    name = "awr"
    dbms = "oracle"

    def can_read(self, head: str) -> bool:
        """Whether *head* looks like an AWR or Statspack report."""
        return detect(head) is not None

    def read_report(self, path: str) -> Workload:
        """Parse *path* into a Workload."""
        return read_report(path)
