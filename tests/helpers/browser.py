"""What a browser shows of an HTML page: headless Chromium's rendered text, widths and a screenshot.

A page is read the way a person sees it: Debian's ``chromium`` (scripts/install-system-deps.sh
installs it) loads a copy of the page with a small script appended, which measures the laid
out page at a 1280-pixel-wide window (the page's and each table's and ``<pre>``'s scroll
width, their right edge) and takes ``innerText`` (the text as rendered: a ``<pre>``'s lines
are lines, an entity is its character). ``--dump-dom`` prints the DOM after the script ran;
the measures travel in one attribute, base64 JSON. A full-page screenshot at the same width
is saved beside the page, as the test's artefact.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

WINDOW_WIDTH_PX = 1280
MAX_SHOT_HEIGHT_PX = 16_000
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]

PROBE = """<script>(() => {
  const box = e => ({tag: e.tagName.toLowerCase(), cls: e.className, right: e.getBoundingClientRect().right,
                     scrollWidth: e.scrollWidth, clientWidth: e.clientWidth, text: e.innerText});
  const measures = {innerWidth: innerWidth, pageWidth: document.documentElement.scrollWidth,
                    pageHeight: document.documentElement.scrollHeight, text: document.body.innerText,
                    tables: [...document.querySelectorAll("table")].map(box),
                    pres: [...document.querySelectorAll("pre")].map(box)};
  const bytes = new TextEncoder().encode(JSON.stringify(measures));
  document.documentElement.setAttribute("data-probe", btoa(Array.from(bytes, b => String.fromCharCode(b)).join("")));
})();</script>"""


def chromium() -> str:
    """The browser's path; the test is skipped, saying why, only where none is installed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on PATH (scripts/install-system-deps.sh installs Debian's chromium)")


@dataclass(frozen=True)
class Box:
    """One laid-out element: its right edge and widths in CSS pixels, and its rendered text."""

    tag: str
    cls: str
    right: float
    scrollWidth: float  # noqa: N815 (the DOM's name)
    clientWidth: float  # noqa: N815
    text: str


@dataclass(frozen=True)
class Rendered:
    """A page as Chromium laid it out at WINDOW_WIDTH_PX, and where its screenshot is."""

    inner_width: int
    page_width: int
    page_height: int
    text: str  # document.body.innerText
    tables: tuple[Box, ...]
    pres: tuple[Box, ...]
    screenshot: Path


def render(page: Path, profile: Path) -> Rendered:
    """Load *page* (a copy with the probe) in headless Chromium; measure it and screenshot it."""
    browser = chromium()
    probed = page.with_name(page.stem + ".probe.html")
    source = page.read_text(encoding="utf-8")
    probed.write_text(source.replace("</body>", PROBE + "</body>", 1) if "</body>" in source else source + PROBE,
                      encoding="utf-8")
    flags = [*CHROMIUM_FLAGS, f"--user-data-dir={profile}"]
    dom = subprocess.run([browser, *flags, f"--window-size={WINDOW_WIDTH_PX},900", "--dump-dom", probed.as_uri()],
                         capture_output=True, text=True, timeout=180, check=True).stdout
    found = re.search(r'data-probe="([A-Za-z0-9+/=]+)"', dom)
    assert found, f"the probe did not run in {probed}: {dom[:300]!r}"
    measures: dict[str, Any] = json.loads(base64.b64decode(found.group(1)).decode("utf-8"))
    shot = page.with_suffix(".png")
    height = min(int(measures["pageHeight"]), MAX_SHOT_HEIGHT_PX)
    subprocess.run([browser, *flags, f"--screenshot={shot}", f"--window-size={WINDOW_WIDTH_PX},{height}",
                    page.as_uri()], capture_output=True, timeout=180, check=True)
    return Rendered(int(measures["innerWidth"]), int(measures["pageWidth"]), int(measures["pageHeight"]),
                    str(measures["text"]), tuple(Box(**t) for t in measures["tables"]),
                    tuple(Box(**p) for p in measures["pres"]), shot)


def png_rows(data: bytes) -> tuple[int, int, list[bytes]]:
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


LITERAL_ESCAPE = re.compile(r"\\[nrt]|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}")
"""An escape sequence shown as text (``\\n``, ``\\x1b``, ``\\u202e``): what a script must never show."""
