"""Objects placed alone: the rule, PostgreSQL relation groups, Oracle segments through `advisor plan`."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import sqlparse

from advisor.engine.hot_objects import group_with_objects, relation_objects, worth_alone
from advisor.model import SegmentRate, Workload, save
from tests.helpers.cli import run_advisor
from tests.helpers.clock import AT
from tests.helpers.workloads import GB, AreaSpec, workload

HOSTILE = 'X"; DROP TABLE T; --'


def test_rule_needs_share_density_and_a_small_object() -> None:
    assert worth_alone(80, 2 * GB, 100, 200 * GB)  # 80 % of the IO in 1 % of the bytes
    assert not worth_alone(10, 2 * GB, 100, 200 * GB)  # too little of the tablespace's IO
    assert not worth_alone(60, 150 * GB, 100, 200 * GB)  # most of the tablespace: move that instead
    assert not worth_alone(30, 20 * GB, 100, 200 * GB)  # 30 % of IO in 10 % of bytes: density 3.9x, not 4x
    assert not worth_alone(50, 1 * GB, 0, 0)


def _pg_workload() -> Workload:
    """Tablespace big: a cold 150 GB table, and a hot 1 GB table with its index and TOAST."""
    base = workload([AreaSpec("big", size_gb=150, read_iops=20, zone=(0.5, 0.8))])
    cold = base.rates[0]
    hot = replace(cold, file_id="app/200", name="public.orders", size_bytes=GB // 2, read_iops=150.0,
                  read_mb_s=1.2, path="/db/big/200")
    index = replace(hot, file_id="app/201", name="public.orders_pkey", kind="index", parent="app/200",
                    path="/db/big/201", read_iops=100.0)
    toast = replace(hot, file_id="app/202", name="pg_toast.pg_toast_200", kind="toast", parent="app/200",
                    path="/db/big/202", read_iops=5.0, size_bytes=GB // 4)
    return replace(base, rates=(cold, hot, index, toast))


def test_hot_table_with_its_index_and_toast_becomes_one_area() -> None:
    load = _pg_workload()
    chosen = relation_objects(load.rates)
    assert chosen == dict.fromkeys(["app/200", "app/201", "app/202"], "app:public.orders")
    areas = {a.name: a for a in group_with_objects(load.rates, load.layout)}
    assert set(areas) == {"big", "app:public.orders"}
    alone = areas["app:public.orders"]
    assert alone.kind == "object" and alone.tablespace == "big" and alone.iops == pytest.approx(255.0)
    assert {r.kind for r in alone.relations} == {"data", "index", "toast"}
    assert areas["big"].iops == pytest.approx(20.0)
    even = [replace(r, read_iops=r.size_bytes / GB) for r in load.rates]  # same density everywhere
    assert relation_objects(even) == {}
    catalog = [load.rates[0], replace(load.rates[1], name="pg_catalog.pg_class"),
               replace(load.rates[2], name="pg_catalog.pg_class_oid_index")]
    assert relation_objects(catalog) == {}  # catalogs are never moved on their own


def test_postgres_plan_moves_the_table_and_index_alone(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    save(_pg_workload(), path)
    done = _plan(path, tmp_path / "scripts")
    sql = (tmp_path / "scripts" / "postgres_objects.sql").read_text()
    assert 'ALTER TABLE "public"."orders" SET TABLESPACE' in sql
    assert 'ALTER INDEX "public"."orders_pkey" SET TABLESPACE' in sql
    assert "pg_toast" not in sql.split("-- run the next")[1]  # TOAST moves with its table
    assert "MiB free" in sql and "ACCESS EXCLUSIVE" in sql
    assert "--moveidx" in (tmp_path / "scripts" / "postgres_objects_repack.sh").read_text()
    assert "app:public.orders" in {p["area"] for p in done["plan"]["placements"]}
    _parses(sql)


def _oracle_workload(segment_name: str = "ORDERS_IDX", read_iops: float = 250.0) -> Workload:
    base = workload([AreaSpec("USERS", size_gb=200, read_iops=300, zone=(0.3, 0.9)),
                     AreaSpec("redo", kind="redo", size_gb=1, write_iops=50, syncs=50, random_share=None,
                              zone=(0.95, 0.96))], dbms="oracle", version_num=190000)
    segments = (
        SegmentRate(f"ORCL:SCOTT.{segment_name}", "SCOTT", segment_name, "INDEX", "USERS", "ORCL",
                    parent="SCOTT.ORDERS", size_bytes=2 * GB, read_iops=read_iops, read_mb_s=read_iops * 0.008),
        SegmentRate("ORCL:SCOTT.SALES:P2026", "SCOTT", "SALES", "TABLE PARTITION", "USERS", "ORCL",
                    partition="P2026", size_bytes=3 * GB, read_iops=5.0),
    )
    return replace(base, segments=segments)


def _plan(path: Path, scripts: Path) -> dict[str, object]:
    done = run_advisor("plan", "--workload", str(path), "--preset", "class-7200-desktop", "--format", "json",
                       "--scripts", str(scripts), "--scripts-anyway")
    assert done.returncode == 0, done.stderr
    document: dict[str, object] = json.loads(done.stdout)
    return document


def _parses(sql: str) -> None:
    statements = [s for s in sqlparse.parse(sql) if s.get_type() != "UNKNOWN" or str(s).strip()]
    assert statements and all(s.get_type() in ("ALTER", "CREATE", "UNKNOWN") for s in statements)


def test_plan_moves_a_hot_oracle_segment_alone_with_its_script(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    save(_oracle_workload(HOSTILE), path)
    done = _plan(path, tmp_path / "scripts")
    plan = done["plan"]
    assert isinstance(plan, dict)
    areas = {p["area"] for p in plan["placements"]}
    assert f"ORCL:SCOTT.{HOSTILE}" in areas and "ORCL:SCOTT.SALES:P2026" not in areas  # the cold partition stays
    sql = (tmp_path / "scripts" / "oracle_objects.sql").read_text()
    assert 'ALTER INDEX "SCOTT"."X""; DROP TABLE T; --" REBUILD ONLINE TABLESPACE' in sql
    assert "CREATE TABLESPACE" in sql and "1908 MiB free" in sql  # 2 GB
    for line in sql.splitlines():
        if not line.startswith("--"):
            assert "DROP TABLE T;" not in line.replace('"X""; DROP TABLE T; --"', "")
    _parses(sql)


def test_even_segment_stays_in_its_tablespace(tmp_path: Path) -> None:
    load = _oracle_workload(read_iops=4.0)  # 2 GB with 4 IOPS: the density of the tablespace itself
    areas = group_with_objects(load.rates, load.layout, load.segments)
    assert all(a.kind != "object" for a in areas)


@pytest.mark.parametrize(("kind", "partition", "version_num", "expected"), [
    ("TABLE", None, 190000, 'ALTER TABLE "SCOTT"."T" MOVE ONLINE TABLESPACE'),
    ("TABLE", None, 120200, 'ALTER TABLE "SCOTT"."T" MOVE ONLINE TABLESPACE'),  # 12.2: online, as 18+
    ("TABLE", None, 120100, "REBUILD ONLINE"),  # 12.1: offline move, then the UNUSABLE indexes are rebuilt
    ("TABLE PARTITION", "P1", 190000, 'MOVE PARTITION "P1" ONLINE TABLESPACE'),
    ("INDEX PARTITION", "P1", 190000, 'REBUILD PARTITION "P1" TABLESPACE'),
    ("LOBSEGMENT", None, 190000, "FROM dba_lobs WHERE owner = 'SCOTT' AND segment_name = 'T'"),
])
def test_oracle_statement_per_segment_type(kind: str, partition: str | None, version_num: int, expected: str) -> None:
    from advisor.engine.scripts.moves import Move
    from advisor.engine.scripts.objects import oracle_object_scripts

    load = _oracle_workload()
    segment = replace(load.segments[0], name="T", segment_type=kind, partition=partition, parent="SCOTT.ORDERS")
    areas = group_with_objects(load.rates, load.layout, (segment,))
    alone = next(a for a in areas if a.kind == "object")
    (script,) = oracle_object_scripts([Move(alone, "random-read", "hot1", "/srv/advisor/hot1", True)], version_num)
    assert expected in script.text
    assert ("MOVE TABLESPACE" in script.text) == (kind == "TABLE" and version_num < 120200)
    _parses(script.text)


@pytest.mark.parametrize(("version_num", "limit"), [(110204, 30), (120100, 30), (120200, 128), (190000, 128)])
def test_oracle_tablespace_names_fit_the_release(version_num: int, limit: int) -> None:
    """Names longer than 30 bytes are legal from 12.2 (not 12.1, whose major is the same); a
    name cut to fit still tells two segments apart."""
    from advisor.engine.scripts.moves import Move
    from advisor.engine.scripts.objects import oracle_tablespace_name

    load = _oracle_workload()

    def name_for(segment_name: str) -> str:
        segment = replace(load.segments[0], name=segment_name, segment_type="TABLE")
        alone = next(a for a in group_with_objects(load.rates, load.layout, (segment,)) if a.kind == "object")
        return oracle_tablespace_name(Move(alone, "random-read", "hot1", "/srv/advisor/hot1", True), version_num)

    long_name = "ORDER_LINES_BY_CUSTOMER_AND_DAY_HISTORY"
    name = name_for(long_name)
    assert len(name.encode()) <= limit and (long_name in name) == (limit == 128), name
    assert name_for(long_name + "_2") != name  # cut names keep apart by their hash


def test_placing_the_segment_alone_beats_moving_its_tablespace() -> None:
    from advisor.engine.advise import AdviceRequest, advise
    from advisor.engine.planner import PlanOptions
    from tests.helpers.workloads import models

    load = _oracle_workload()
    options = PlanOptions(new_disks=True)
    alone = advise(AdviceRequest(load, models(), options, generated_at=AT)).plan
    whole = advise(AdviceRequest(replace(load, segments=()), models(), options, generated_at=AT)).plan
    assert alone is not None and whole is not None
    assert any(p.area == "ORCL:SCOTT.ORDERS_IDX" for p in alone.placements)
    assert alone.predicted_after_ms < whole.predicted_after_ms * 0.9  # the same IOs, served from a narrow band
