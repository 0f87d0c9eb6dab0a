"""A document whose header strings hold bytes that are not UTF-8 is refused in one line, not a traceback."""

from __future__ import annotations

import pytest

from advisor.errors import BadInput
from advisor.model import FORMAT_VERSION, Workload
from advisor.model.jsonio import decode_document


def test_non_utf8_bytes_before_the_body_are_bad_input() -> None:
    raw = b'{"document": "work\xec\x88load", "format_version": 3}'
    with pytest.raises(BadInput, match="not UTF-8 at byte"):
        decode_document(raw, "w.json", "workload", Workload, FORMAT_VERSION)
