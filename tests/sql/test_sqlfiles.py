"""Static checks of sql/postgres: markers, headers, parameters and literal percents."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from advisor.collect.sqlfiles import available, sql_root
from advisor.collectors.postgres.rows import DEFAULT_PARAMS

FILES = sorted((Path(__file__).resolve().parents[2] / "sql" / "postgres").glob("*.sql"))
LONE_PERCENT = re.compile(r"%(?!%|\([a-z_]+\)s)")


def _without_doubled(text: str) -> str:
    return text.replace("%%", "")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_lone_percent(path: Path) -> None:
    statement = next(f for f in available("postgres") if Path(f.path).name == path.name).text
    assert not LONE_PERCENT.search(_without_doubled(statement)), f"{path.name}: write %% for a literal percent"


def test_lone_percent_detector_works() -> None:
    assert LONE_PERCENT.search(_without_doubled("WHERE name LIKE 'x%'"))
    assert not LONE_PERCENT.search(_without_doubled("WHERE name LIKE 'x%%' AND a = %(a)s"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_header_marker_and_params(path: Path) -> None:
    sql = next(f for f in available("postgres") if Path(f.path).name == path.name)
    assert sql.header.startswith("--") and len(sql.header) > 40, "say what the query is for"
    assert f"/* advisor:{sql.query} */" in sql.text
    used = set(re.findall(r"%\(([a-z_]+)\)s", sql.text))
    assert used <= set(DEFAULT_PARAMS.get(sql.query, {})), f"{path.name}: parameter without a default"


def test_files_are_found_through_the_package() -> None:
    assert (sql_root() / "postgres").is_dir()
    assert len(available("postgres")) == len(FILES) > 10


def test_settings_header_lists_every_parameter_value() -> None:
    """`advisor sql show settings` must tell a DBA which names the collector binds."""
    from advisor.collectors.postgres.rows import SETTING_NAMES

    header = next(f for f in available("postgres") if f.query == "settings").header
    missing = [name for name in SETTING_NAMES if name not in header]
    assert not missing, f"settings.v14.sql header does not list {missing}"
