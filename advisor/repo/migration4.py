"""Schema version 4: a different document under a key the repository holds replaces the stored one.

A snapshot is keyed by its instance and time, a workload by its instance, interval and source;
before version 4 a second document under the same key was dropped as "already there", so a
workload pushed with a wrong sizes file advised the fleet for good. The collectors' role may
only insert, so the replacement is done by two SECURITY DEFINER functions with a fixed
search_path, called in the push's transaction before its INSERT: each deletes the stored row
whose digest differs from the pushed one, with the interval summaries made from it, and says
which keys it replaced. The INSERT that follows stores the new document and queues its arrival,
so the summariser makes those intervals again. The same document (the same digest) deletes
nothing: a push of it stays a no-op.
"""

from __future__ import annotations

from typing import LiteralString

V4: LiteralString = """
CREATE OR REPLACE FUNCTION advisor.replace_changed_snapshots(ids text[], taken timestamptz[], digests text[])
RETURNS SETOF bigint LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
    WITH wanted AS (SELECT * FROM unnest(ids, taken, digests) WITH ORDINALITY AS w(instance_id, taken_at, digest, n)),
    gone AS (
        DELETE FROM advisor.snapshots s USING wanted w
        WHERE s.instance_id = w.instance_id AND s.taken_at = w.taken_at AND s.digest <> w.digest
        RETURNING w.n, s.instance_id, s.taken_at),
    summaries AS (  -- the intervals the replaced snapshot opened or closed (or spanned, made before it arrived)
        DELETE FROM advisor.interval_summaries i USING gone g
        WHERE i.instance_id = g.instance_id AND i.source = 'snapshots'
          AND i.started_at <= g.taken_at AND i.ended_at >= g.taken_at)
    SELECT n FROM gone
$fn$;
REVOKE ALL ON FUNCTION advisor.replace_changed_snapshots(text[], timestamptz[], text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION advisor.replace_changed_snapshots(text[], timestamptz[], text[]) TO advisor_collector;

CREATE OR REPLACE FUNCTION advisor.replace_changed_workload(id text, started timestamptz, ended timestamptz,
                                                            src text, dig text)
RETURNS boolean LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
    WITH gone AS (
        DELETE FROM advisor.workloads
        WHERE instance_id = id AND started_at = started AND ended_at = ended AND source = src AND digest <> dig
        RETURNING instance_id),
    summaries AS (
        DELETE FROM advisor.interval_summaries
        WHERE EXISTS (SELECT FROM gone) AND instance_id = id AND started_at = started AND ended_at = ended
          AND source = 'workload:' || src)
    SELECT EXISTS (SELECT FROM gone)
$fn$;
REVOKE ALL ON FUNCTION advisor.replace_changed_workload(text, timestamptz, timestamptz, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION advisor.replace_changed_workload(text, timestamptz, timestamptz, text, text)
    TO advisor_collector;
"""
