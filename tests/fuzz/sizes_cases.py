"""Fuzz cases for sizes files: the ``sizes`` query's rows printed as SQL*Plus and psql print them, damaged.

A case is one sizes file and the report fixture it belongs to (the 11.2.0.4 AWR text report
for the 11.2 rows, the 12.2 CDB HTML report for the CDB's); :mod:`tests.fuzz.run` reads the
file, merges it into the report's workload and checks the fuzz property, within the per-case
time limit. The rows are damaged before printing (a size of 0, below a block, negative,
fractional, huge or with an exponent no size has, decimal commas, another kind of file under
a data file's name, another database, no CONTAINER column) and the text after (every report
mutation of :mod:`tests.fuzz.mutate`, plus a blank line under a heading, a byte order mark,
``SET TIMING ON``'s ``Elapsed:`` line, a page break in the middle of a record).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from tests.fuzz.mutate import SIZES_SEEDS, TEXT_MUTATIONS, Case, concatenate, to_bytes
from tests.oracle.sizes_rows import COLUMNS_11, COLUMNS_12, rows_11, rows_12
from tests.oracle.sizes_shapes import Row, psql_aligned, psql_csv, sqlplus_csv, sqlplus_grid

SIZE_WORDS = ("0", "1", "4096", "-5", "1.5", "1e400", "1e309 MB", "1e40", "5,3687E+10", "1,5 GB", "3.2212E+11",
              "1,073,741,824", "1.073.741.824", "NaN", "inf", "", "12 MB", "0x10", "9" * 40, "1e-400")


def _rows(rng: random.Random, rows: list[Row], steps: list[str]) -> list[Row]:
    for _ in range(rng.choice((0, 1, 1, 2))):
        index = rng.randrange(len(rows))
        choice = rng.randrange(5)
        if choice <= 1:
            word = rng.choice(SIZE_WORDS)
            rows[index] = rows[index] | {"bytes": word}
            steps.append(f"row {index} bytes {word!r}")
        elif choice == 2:  # a file's name under another kind of row
            other = rng.randrange(len(rows))
            rows[index] = rows[index] | {"file_name": rows[other]["file_name"]}
            steps.append(f"row {index} named as row {other}")
        elif choice == 3:
            rows[index] = rows[index] | {"db_name": "PROD", "dbid": "42"}
            steps.append(f"row {index} of another database")
        else:
            rows[index] = rows[index] | {"tablespace": rng.choice(("SYSAUX", "", "TEMP", "users"))}
            steps.append(f"row {index} tablespace changed")
    return rows


def blank_under_a_heading(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.split("\n")
    spots = [i for i, line in enumerate(lines) if line.strip()]
    at = rng.choice(spots) + 1 if spots else 0
    return "\n".join(lines[:at] + [""] + lines[at:]), f"blank line after line {at}"


def byte_order_mark(rng: random.Random, text: str) -> tuple[str, str]:
    at = 0 if rng.random() < 0.7 else rng.randrange(len(text) + 1)
    return text[:at] + "\ufeff" + text[at:], f"byte order mark at {at}"


def timing_line(rng: random.Random, text: str) -> tuple[str, str]:
    return text + "Elapsed: 00:00:00.04\n", "Elapsed: after the end"


SIZES_MUTATIONS: tuple[Callable[[random.Random, str], tuple[str, str]], ...] = (
    *(m for m in TEXT_MUTATIONS if m is not concatenate), blank_under_a_heading, byte_order_mark, timing_line,
)


def sizes_case(case_seed: int) -> Case:
    """The sizes case a seed (from :data:`~tests.fuzz.mutate.SIZES_SEEDS`) stands for."""
    rng = random.Random(case_seed)
    cdb = rng.random() < 0.4
    report = "awr_12.2.0.1_cdb.html" if cdb else "awr_11.2.0.4.txt"
    columns = COLUMNS_12 if cdb and rng.random() < 0.8 else COLUMNS_11
    steps = [f"{'CDB' if cdb else '11.2'} rows, {'with' if 'container' in columns else 'no'} CONTAINER"]
    rows = _rows(rng, rows_12() if cdb else rows_11(), steps)
    shape = rng.choice(("sqlplus-csv", "sqlplus-grid", "psql-csv", "psql-aligned"))
    if shape == "sqlplus-csv":
        text = sqlplus_csv(columns, rows)
    elif shape == "sqlplus-grid":
        pagesize = rng.choice((5, 8, 14, 50))
        text = sqlplus_grid([c for c in columns if c != "file_name" or rng.random() < 0.9], rows, pagesize)
        steps.append(f"pagesize {pagesize}")
    elif shape == "psql-csv":
        text = psql_csv(columns, rows)
    else:
        text = psql_aligned(columns, rows)
    steps.append(shape)
    for _ in range(rng.choice((0, 1, 1, 2))):
        mutation = rng.choice(SIZES_MUTATIONS)
        text, what = mutation(rng, text)
        steps.append(f"{mutation.__name__}: {what}")
    return Case("sizes", [("sizes.out", to_bytes(text))], steps, case_seed, report)


def sizes_cases(seed: int, count: int) -> Iterator[Case]:
    """*count* sizes cases from *seed*, each replayable from its own seed."""
    master = random.Random(seed ^ 0x5123)
    for _ in range(count):
        yield sizes_case(SIZES_SEEDS + master.randrange(1 << 32))
