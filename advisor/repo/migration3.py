"""Schema version 3: advice per interval computed at arrival, and snapshots stored packed.

Tables (see docs/fleet.md, "The repository"): ``interval_summaries`` (one row per interval,
partitioned by month of its end), ``summary_hourly`` and ``summary_daily`` (rollups of the
snapshot intervals), ``arrivals`` (the summariser's queue, filled by a SECURITY DEFINER
trigger so the collectors' role needs no grant on it), ``skipped_rows``, ``layouts`` (file
locations stored once per instance and content); ``snapshots`` gains ``packed`` and
``layout_digest`` and its ``document`` becomes optional. Every table is keyed by instance
first (or instance and time), with no foreign key, so the repository can be distributed by
instance. Written to be applied again harmlessly (``IF NOT EXISTS``): a repository whose
version row was lost is repaired by running the migrations again. What the repository held
before is queued for the summariser.
"""

from __future__ import annotations

from typing import LiteralString

V3: LiteralString = """
ALTER TABLE advisor.snapshots ALTER COLUMN document DROP NOT NULL;
ALTER TABLE advisor.snapshots ADD COLUMN IF NOT EXISTS packed bytea, ADD COLUMN IF NOT EXISTS layout_digest text;
ALTER TABLE advisor.snapshots ALTER COLUMN packed SET STORAGE EXTERNAL;  -- zlib already: no second compression
CREATE TABLE IF NOT EXISTS advisor.layouts (
    instance_id text NOT NULL,
    digest text NOT NULL,                  -- sha256 of the packed file locations
    locations bytea NOT NULL,              -- zlib of the JSON of layout.locations
    first_at timestamptz NOT NULL,
    PRIMARY KEY (instance_id, digest)
);
ALTER TABLE advisor.layouts ALTER COLUMN locations SET STORAGE EXTERNAL;
CREATE TABLE IF NOT EXISTS advisor.arrivals (            -- what the summariser has still to do (a queue)
    instance_id text NOT NULL,
    ended_at timestamptz NOT NULL,         -- a snapshot's taken_at, a workload's end
    started_at timestamptz NOT NULL,       -- = ended_at for a snapshot
    source text NOT NULL,                  -- 'snapshots', or 'workload:' and the workload row's source
    queued_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (instance_id, ended_at, started_at, source)
);
CREATE TABLE IF NOT EXISTS advisor.interval_summaries (
    instance_id text NOT NULL,
    started_at timestamptz NOT NULL,
    ended_at timestamptz NOT NULL,
    source text NOT NULL,
    engine_version text NOT NULL,          -- a summary of another engine is recomputed, never mixed
    models_key text NOT NULL,
    interval_s double precision NOT NULL,
    db_iops double precision NOT NULL,
    io_wait_share double precision,
    planned boolean NOT NULL,
    before_ms double precision,
    after_ms double precision,
    before_s_per_h double precision NOT NULL,
    saved_s_per_h double precision NOT NULL,
    saved_share double precision NOT NULL,
    predicted_gain double precision,
    verdict text NOT NULL,
    read_s_per_h double precision,
    findings text[] NOT NULL,
    note text NOT NULL,
    reset boolean NOT NULL,                -- the interval crosses a restart or a stats reset
    top_areas jsonb NOT NULL,
    computed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (instance_id, ended_at, started_at, source)
) PARTITION BY RANGE (ended_at);
CREATE TABLE IF NOT EXISTS advisor.summary_hourly (  -- the snapshot intervals ending in the hour
    instance_id text NOT NULL,
    bucket timestamptz NOT NULL,
    engine_version text NOT NULL,          -- 'mixed' while some of the bucket's summaries are stale
    models_key text NOT NULL,
    intervals int NOT NULL,                -- not reset
    resets int NOT NULL,
    first_at timestamptz NOT NULL,
    last_at timestamptz NOT NULL,
    seconds double precision NOT NULL,
    ios double precision NOT NULL,
    wait_s double precision,               -- IO wait share x seconds; NULL when an interval's is unknown
    read_s double precision,               -- read time s/h x seconds; NULL when an interval's is unknown
    planned_seconds double precision NOT NULL,
    before_s double precision NOT NULL,
    saved_s double precision NOT NULL,
    not_io_bound boolean,                  -- every interval without a plan was not IO bound
    note text,
    peak_db_iops double precision NOT NULL,
    peak_saved_s_per_h double precision NOT NULL,
    PRIMARY KEY (instance_id, bucket)
) PARTITION BY RANGE (bucket);
CREATE TABLE IF NOT EXISTS advisor.skipped_rows (  -- rows the summariser could not believe, named
    instance_id text NOT NULL,
    ended_at timestamptz NOT NULL,
    why text NOT NULL,
    noted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (instance_id, ended_at, why)
);
CREATE TABLE IF NOT EXISTS advisor.summary_daily (LIKE advisor.summary_hourly INCLUDING ALL)
    PARTITION BY RANGE (bucket);

CREATE OR REPLACE FUNCTION advisor.ensure_month(parent text, at timestamptz) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET TimeZone = 'UTC' AS $fn$
DECLARE
    first_day timestamptz;
    child text;
BEGIN
    IF parent NOT IN ('snapshots', 'snapshot_files', 'workloads', 'reports', 'interval_summaries',
                      'summary_hourly', 'summary_daily') THEN
        RAISE EXCEPTION 'advisor.ensure_month: % is not a partitioned advisor table', parent;
    END IF;
    IF at IS NULL OR at < '1970-01-01 00:00:00+00' OR at >= '2200-01-01 00:00:00+00' THEN
        RAISE EXCEPTION 'advisor.ensure_month: time % is outside 1970-01-01 .. 2199-12-31', at
            USING ERRCODE = 'datetime_field_overflow';
    END IF;
    first_day := date_trunc('month', at);
    child := parent || '_' || to_char(first_day, 'YYYYMM');
    IF EXISTS (SELECT FROM pg_class WHERE relname = child AND relnamespace = 'advisor'::regnamespace) THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('advisor.ensure_month'));
    IF EXISTS (SELECT FROM pg_class WHERE relname = child AND relnamespace = 'advisor'::regnamespace) THEN
        RETURN;
    END IF;
    EXECUTE format('CREATE TABLE IF NOT EXISTS advisor.%I PARTITION OF advisor.%I FOR VALUES FROM (%L) TO (%L)',
                   child, parent, first_day, first_day + interval '1 month');
END
$fn$;
-- every new snapshot or workload queues its arrival, whoever inserts it (the collectors' role
-- may not read what it inserted, so an INSERT ... RETURNING cannot say which rows were new)
CREATE OR REPLACE FUNCTION advisor.queue_arrival() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    IF TG_TABLE_NAME LIKE 'snapshots%' THEN
        INSERT INTO advisor.arrivals (instance_id, ended_at, started_at, source)
        VALUES (NEW.instance_id, NEW.taken_at, NEW.taken_at, 'snapshots') ON CONFLICT DO NOTHING;
    ELSE
        INSERT INTO advisor.arrivals (instance_id, ended_at, started_at, source)
        VALUES (NEW.instance_id, NEW.ended_at, NEW.started_at, 'workload:' || NEW.source) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$fn$;
REVOKE ALL ON FUNCTION advisor.queue_arrival() FROM PUBLIC;
DROP TRIGGER IF EXISTS queue_arrival ON advisor.snapshots;
CREATE TRIGGER queue_arrival AFTER INSERT ON advisor.snapshots FOR EACH ROW EXECUTE FUNCTION advisor.queue_arrival();
DROP TRIGGER IF EXISTS queue_arrival ON advisor.workloads;
CREATE TRIGGER queue_arrival AFTER INSERT ON advisor.workloads FOR EACH ROW EXECUTE FUNCTION advisor.queue_arrival();
CREATE INDEX IF NOT EXISTS interval_summaries_ended ON advisor.interval_summaries (ended_at);
GRANT INSERT ON advisor.layouts TO advisor_collector;
-- what a repository held before summaries: queued, summarised by the next drain
INSERT INTO advisor.arrivals (instance_id, ended_at, started_at, source)
SELECT instance_id, taken_at, taken_at, 'snapshots' FROM advisor.snapshots ON CONFLICT DO NOTHING;
INSERT INTO advisor.arrivals (instance_id, ended_at, started_at, source)
SELECT instance_id, ended_at, started_at, 'workload:' || source FROM advisor.workloads ON CONFLICT DO NOTHING;
GRANT SELECT ON advisor.skipped_rows, advisor.layouts, advisor.arrivals, advisor.interval_summaries,
    advisor.summary_hourly,
    advisor.summary_daily TO advisor_reader;
"""
