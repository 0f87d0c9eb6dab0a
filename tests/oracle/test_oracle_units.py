"""Oracle unit conversions: each view's unit, and no time at all when timing is off."""

from __future__ import annotations

from decimal import Decimal

import pytest

from advisor.collectors.oracle import units


def test_each_unit_converts_to_advisor_units() -> None:
    assert units.centiseconds_to_ms(4800, True) == 48_000.0  # V$FILESTAT READTIM
    assert units.ms(Decimal("1500.5"), True) == 1500.5  # V$IOSTAT_FILE service time
    assert units.microseconds_to_s(120_000_000, True) == 120.0  # V$SYS_TIME_MODEL
    assert units.microseconds_to_ms(1_500_000, True) == 1500.0  # TIME_WAITED_MICRO
    assert units.centiseconds_to_s(6000, True) == 60.0  # V$SYSTEM_WAIT_CLASS
    assert units.megabytes_to_bytes(3) == 3 * 1024 * 1024
    assert units.blocks_to_bytes(24000, 8192) == 24000 * 8192


@pytest.mark.parametrize(
    "convert", [units.centiseconds_to_ms, units.ms, units.microseconds_to_s, units.microseconds_to_ms]
)
def test_timing_off_gives_none_not_zero(convert: object) -> None:
    assert callable(convert)
    assert convert(0, False) is None and convert(123, False) is None


def test_counters_accept_every_number_type() -> None:
    assert units.count(Decimal("18446744073709551615")) == 18446744073709551615  # SCN-sized, exact
    assert units.count(12.0) == 12 and units.count(None) == 0
    assert units.version_num("23.4.0.24.05") == 230400 and units.version_num("12.2.0.1.0") // 10000 == 12
    assert units.is_true("TRUE") and not units.is_true("FALSE")
