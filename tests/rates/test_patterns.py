"""pg_stat_io's bulk reads given to the tables scanned in the interval (advisor.rates.patterns)."""

from __future__ import annotations

import pytest

from advisor.model import FileRate
from advisor.rates.patterns import BulkReads, with_scans


def rate(file_id: str, blocks_per_s: float) -> FileRate:
    return FileRate(file_id, f"/d/{file_id}", "data", "pg_default", "app", 1 << 30, blocks_per_s, None,
                    blocks_per_s * 8 / 1024, None, 8.0, None, None, None, None)


def test_combined_ios_become_the_scanned_tables_reads_and_the_lookups_stay_blocks() -> None:
    rates = [rate("app/1", 1644.0), rate("app/2", 78.0)]
    # 18: 1,644 blocks/s read as 13,314 / 127 KiB IOs over a 10 s interval (16,440 blocks)
    bulk = BulkReads(blocks=16440.0, operations=16440 * 8 / 127)
    got, warnings = with_scans(rates, {"app/1": 3}, bulk, 10.0, 8192)
    scan, lookups = got
    assert warnings == []
    assert scan.read_iops == pytest.approx(1644 * 8 / 127) and scan.blocks_read_per_s == 1644.0
    assert scan.random_share == pytest.approx(0.0) and scan.mean_read_kb == pytest.approx(127.0)
    assert scan.read_mb_s == rates[0].read_mb_s  # bytes are what they were
    assert lookups == rates[1]


def test_before_18_blocks_stay_blocks_and_only_the_share_is_set() -> None:
    rates = [rate("app/1", 100.0), rate("app/2", 100.0)]
    got, _ = with_scans(rates, {"app/1": 1, "app/2": 2}, BulkReads(blocks=1000.0, operations=1000.0), 10.0, 8192)
    for r in got:  # 100 bulk blocks/s over 200 scanned: half of each table's blocks were the scans'
        assert r.read_iops == 100.0 and r.random_share == pytest.approx(0.5) and r.blocks_read_per_s is None


def test_bulk_reads_no_scanned_table_accounts_for_are_said_and_not_invented() -> None:
    rates = [rate("app/1", 10.0)]
    got, warnings = with_scans(rates, {}, BulkReads(blocks=500.0, operations=40.0), 10.0, 8192)
    assert got == tuple(rates)
    assert len(warnings) == 1 and "50.0 sequentially read blocks/s" in warnings[0]
    assert with_scans(rates, {"app/1": 1}, None, 10.0, 8192) == (tuple(rates), [])


def test_the_workload_page_says_the_size_and_pattern_of_each_tablespaces_reads() -> None:
    from rich.console import Console

    from advisor.rates.areas import tablespace_rates
    from advisor.render.rates import has_patterns, pattern_table

    plain = [rate("app/2", 78.0)]
    assert not has_patterns(tablespace_rates(plain))  # nothing known: the page has no such table
    bulk = BulkReads(blocks=16440.0, operations=16440 * 8 / 127, other_blocks_per_io=1.0)
    got, _ = with_scans([rate("app/1", 1644.0), *plain], {"app/1": 3}, bulk, 10.0, 8192)
    assert got[1].random_share == 1.0  # the other reads were one block each: random lookups
    rows = tablespace_rates(got)
    assert has_patterns(rows)
    console = Console(width=100, record=True)
    console.print(pattern_table(rows, counts_blocks=True))
    text = console.export_text()
    # one tablespace: 104 IOs of 127 KiB and 78 of 8 KiB, 43 % of them random, combined by the server
    assert "IOs combined by the server (1,722 blocks/s)" in text, text
    assert "75.9" in text and "43%" in text, text
