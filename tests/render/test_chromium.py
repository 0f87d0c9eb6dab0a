"""The HTML report in a real headless Chromium: it renders, and the findings are in the DOM."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from advisor.model import Report
from advisor.render.html import render_html

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on PATH (scripts/install-system-deps.sh installs Debian's chromium)")


def _png_rows(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and raw scanlines of an 8-bit RGB(A) PNG (enough to check it is not blank)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, _, colour = struct.unpack(">IIBB", body[:10])
            channels = {2: 3, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels + 1
    return width, height, [raw[i * stride:(i + 1) * stride] for i in range(height)]


@pytest.mark.chromium
@pytest.mark.slow
def test_html_report_renders_in_chromium(report: Report, tmp_path: Path) -> None:
    browser = _chromium()
    page = tmp_path / "report.html"
    page.write_text(render_html(report), encoding="utf-8")
    shot = tmp_path / "report.png"
    flags = [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    assert shot.exists() and shot.stat().st_size > 20_000
    width, height, rows = _png_rows(shot.read_bytes())
    assert (width, height) == (1200, 1600)
    distinct_rows = {row[1:] for row in rows}
    assert len(distinct_rows) > 100, "the page shows text and drawings, not a blank canvas"
    dom = subprocess.run([browser, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    for finding in report.findings:
        assert f'data-code="{finding.code}"' in dom
    assert "<svg" in dom and 'class="diskmap"' in dom
