"""A database name in a libpq connection string (pg_repack's ``--dbname``) reads back whole.

The scripts quote it without a database driver (the engine imports none); libpq's own parser
(``PQconninfoParse``, reached through psycopg here in the test) must read back exactly the
name, whatever it holds.
"""

from __future__ import annotations

import pytest
from psycopg.conninfo import conninfo_to_dict

from advisor.engine.scripts.quoting import conninfo_value

NAMES = ["app", "app_1", "a=b", "two words", "it's", "back\\slash", "\\'", "'", "\\", "tab\there",
         "new\nline", "postgresql://x", "dbname=other host=evil", "caf\u00e9", "\u00e0 la", "nbsp\u00a0",
         '"quoted"', "trailing\\", "  ", "=", "a'b\\c d"]


@pytest.mark.parametrize("name", NAMES)
def test_libpq_reads_the_name_back(name: str) -> None:
    parsed = conninfo_to_dict(f"dbname={conninfo_value(name)} application_name=advisor")
    assert parsed == {"dbname": name, "application_name": "advisor"}


def test_plain_names_stay_plain_and_others_are_quoted() -> None:
    assert conninfo_value("orders_2024") == "orders_2024"
    assert conninfo_value("a=b") == "'a=b'"
    assert conninfo_value("it's x") == "'it\\'s x'"
