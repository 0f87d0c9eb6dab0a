-- Buffer misses of every relation with storage in the current database, attributed to the
-- relation's own tablespace (reltablespace 0 = the database's default). Tables, indexes,
-- TOAST tables and TOAST indexes are separate rows (summing pg_statio_all_tables would double
-- count TOAST). Shared catalogs (pg_global) are the same in every database: only the one run
-- with count_shared = true returns them. blks_read is a shared_buffers miss, possibly served
-- by the OS cache. No function here opens or locks a relation (pg_relation_size would take a
-- lock on every relation, exhaust max_locks_per_transaction on large catalogs and wait behind
-- DDL), so the size is relpages (as of the last VACUUM/ANALYZE); the collector replaces it
-- with the real file sizes when the data directory is visible on its host.
-- Parameter count_shared: true in the collector's own database, false in the others.
SELECT /* advisor:relations */
       c.oid::bigint AS oid,
       n.nspname || '.' || c.relname AS relname,
       c.relkind::text AS relkind,
       (n.nspname = 'pg_toast') AS is_toast,
       COALESCE(NULLIF(c.reltablespace, 0), d.dattablespace)::bigint AS spcoid,
       c.relisshared AS is_shared,
       pg_relation_filepath(c.oid) AS filepath,
       c.relpages::bigint AS relpages,
       (pg_stat_get_blocks_fetched(c.oid) - pg_stat_get_blocks_hit(c.oid)) AS blks_read,
       pg_stat_get_blocks_hit(c.oid) AS blks_hit
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_database d ON d.datname = current_database()
 WHERE c.relkind IN ('r', 't', 'm', 'i', 'S')
   AND c.relpersistence <> 't'
   AND (NOT c.relisshared OR %(count_shared)s)
