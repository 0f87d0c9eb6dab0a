"""The temp directories' high-water mark: real files written and removed while the sampler runs."""

from __future__ import annotations

import time
from pathlib import Path

from advisor.collect.temp_watermark import TempWatermark


def test_the_largest_size_seen_is_kept_after_the_files_are_gone(tmp_path: Path) -> None:
    tmp = tmp_path / "PG_18_1" / "pgsql_tmp"
    tmp.mkdir(parents=True)
    watermark = TempWatermark([str(tmp)], every_s=0.02)
    watermark.start()
    spill = tmp / "pgsql_tmp123.0"
    spill.write_bytes(b"x" * (3 << 20))
    time.sleep(0.2)
    spill.unlink()
    time.sleep(0.1)
    marks = watermark.stop()
    assert (3 << 20) <= marks[str(tmp)] < (4 << 20)
    assert watermark.samples >= 3
    assert not any(tmp.iterdir())  # the files are gone: only the mark remembers them


def test_a_missing_temp_directory_under_a_visible_tablespace_held_nothing(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    watermark = TempWatermark([str(tmp_path / "base" / "pgsql_tmp")], every_s=0.02)
    watermark.start()
    assert watermark.stop() == {str(tmp_path / "base" / "pgsql_tmp"): 0}


def test_a_directory_this_host_cannot_see_stays_unknown(tmp_path: Path) -> None:
    elsewhere = str(tmp_path / "no-such-tablespace" / "PG_18_1" / "pgsql_tmp")
    watermark = TempWatermark([elsewhere], every_s=0.02)
    watermark.start()
    assert watermark.stop() == {} and watermark.directories == []
