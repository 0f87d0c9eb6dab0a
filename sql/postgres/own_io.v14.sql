-- The collector's own block reads and scans that its counters do not hold yet: the current
-- backend's pending statistics (pg_stat_get_xact_*), per relation of the current database and
-- shared catalog. The collector runs this last, in the transaction that read the counters:
-- no backend sends its statistics inside a transaction, so these are exactly the reads the
-- collector's queries made after the counters were taken, which reach the counters once the
-- transaction ends and would otherwise be counted as the next interval's workload. The
-- snapshot adds them to the counters it reports, so the next diff subtracts them.
-- Its own scan of pg_class hits the pages the relations query has just read.
SELECT /* advisor:own_io */
       c.oid::bigint AS oid,
       c.relisshared AS is_shared,
       (pg_stat_get_xact_blocks_fetched(c.oid) - pg_stat_get_xact_blocks_hit(c.oid)) AS reads,
       pg_stat_get_xact_numscans(c.oid) AS scans
  FROM pg_class c
 WHERE c.relkind IN ('r', 't', 'm', 'i', 'S')
   AND (pg_stat_get_xact_blocks_fetched(c.oid) - pg_stat_get_xact_blocks_hit(c.oid) > 0
        OR pg_stat_get_xact_numscans(c.oid) > 0)
