"""Every column each Oracle SQL file selects exists in the documented view for that release."""

from __future__ import annotations

import pytest

from advisor.collect.sqlfiles import available
from tests.oracle.oracle_catalog import CATALOG
from tests.oracle.oracle_sqlshape import shape

FILES = available("oracle")


def test_there_are_sql_files_for_every_live_query() -> None:
    from advisor.collectors.oracle.live import LIVE_QUERIES

    queries = {f.query for f in FILES}
    assert set(LIVE_QUERIES) <= queries and "containers" in queries
    assert {f.min_major for f in FILES} == {11, 12, 18}


@pytest.mark.parametrize("sql", FILES, ids=[f"{f.query}.v{f.min_major}" for f in FILES])
def test_selected_columns_are_documented(sql: object) -> None:
    from advisor.collect.sqlfiles import SqlFile

    assert isinstance(sql, SqlFile)
    parsed = shape(sql.text)
    assert parsed.views, "no view found"
    for view in parsed.views.values():
        assert view in CATALOG, f"{view} is not in the catalog"
    checked = 0
    for column in parsed.columns:
        if column.source is None:
            continue  # an expression such as sys_extract_utc(systimestamp)
        view = parsed.view_of(column.qualifier)
        assert column.source in CATALOG[view], f"{view}.{column.source} is not documented"
        since = CATALOG[view][column.source][1]
        assert since <= sql.min_major, f"{view}.{column.source} needs {since}, file is for {sql.min_major}"
        checked += 1
    for qualifier, name in parsed.where_columns:
        view = parsed.view_of(qualifier)
        assert name in CATALOG[view], f"WHERE uses {view}.{name}, which is not documented"
    assert checked == len([c for c in parsed.columns if c.source])
    aliases = [c.alias for c in parsed.columns]
    assert all(a == a.lower() and a.isidentifier() for a in aliases), aliases


def test_catalog_check_catches_a_wrong_column() -> None:
    parsed = shape("select /* advisor:x */ file#, phyreads from gv$filestat")
    assert "PHYREADS" not in CATALOG[parsed.view_of(None)]
    assert "FILE#" in CATALOG[parsed.view_of(None)]
