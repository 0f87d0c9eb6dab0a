"""Damage the fuzz suite found in documents: each one line and exit 6 (BadInput), never an internal error.

A 5,000-digit number made msgspec refuse the file; the standard parser then asked for a line
and column raised ``ValueError`` (Python's limit on integer digits) instead. Bytes that are not
UTF-8 inside a string were met first by the header skim, which did not expect them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.errors import BadInput
from advisor.model import load_snapshot

HUGE = b'{"document": "snapshot", "format_version": 3, "taken_at": ' + b"9" * 5000 + b' "files": []}'  # the comma lost
NOT_UTF8 = b'{"document": "snap\xf3\xd1shot", "format_version": 1}'


@pytest.mark.parametrize(("raw", "said"), [(HUGE, "not valid JSON"), (NOT_UTF8, "not UTF-8 at byte")])
def test_damaged_bytes_are_bad_input(tmp_path: Path, raw: bytes, said: str) -> None:
    path = tmp_path / "damaged.json"
    path.write_bytes(raw)
    with pytest.raises(BadInput) as caught:
        load_snapshot(path)
    assert said in caught.value.one_line() and "\n" not in caught.value.one_line()
