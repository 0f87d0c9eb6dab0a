"""Sizes people type and sizes people read: binary units, one parser, one formatter."""

from __future__ import annotations

import pytest

from advisor.errors import BadInput
from advisor.units import CACHE_MODES, GIB, KIB, MIB, STANDARD_RPM, human_bytes, mean_kib, mib_per_s, parse_size


@pytest.mark.parametrize(("text", "expected"), [
    ("4096", 4096), ("4k", 4 * KIB), ("4K", 4 * KIB), ("4KiB", 4 * KIB), ("512M", 512 * MIB), ("512mb", 512 * MIB),
    ("1.5GiB", 3 * GIB // 2), (" 2G ", 2 * GIB), ("1T", 1 << 40), ("10B", 10),
])
def test_parse_size_binary_units(text: str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "two", "-1G", "0", "3X", "1.5.2M", "4 KB extra"])
def test_parse_size_refuses_with_one_line(text: str) -> None:
    with pytest.raises(BadInput) as caught:
        parse_size(text)
    assert "\n" not in caught.value.message and repr(text) in caught.value.message


def test_human_bytes_is_binary_and_rates_agree() -> None:
    assert [human_bytes(v) for v in (0, 1023, 1024, 500 * 10**9, 3 * (1 << 40))] == [
        "0 B", "1023 B", "1.0 KiB", "465.7 GiB", "3.0 TiB"]
    assert mib_per_s(10 * MIB, 2.0) == 5.0 and mean_kib(3 * 8192, 3) == 8.0 and mean_kib(None, 3) is None


def test_drive_constants() -> None:
    assert CACHE_MODES == ("off", "volatile", "lying")
    assert list(STANDARD_RPM) == sorted(STANDARD_RPM) and 7200 in STANDARD_RPM
