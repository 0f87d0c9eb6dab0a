-- Buffer misses of every relation with storage in the current database, attributed to the
-- relation's own tablespace (reltablespace 0 = the database's default). Tables, indexes,
-- TOAST tables and TOAST indexes are separate rows (summing pg_statio_all_tables would double
-- count TOAST). Shared catalogs (pg_global) are the same in every database: only the one run
-- with count_shared = true returns them. Relations that are empty and were never read are
-- left out. blks_read is a shared_buffers miss, possibly served by the OS cache.
WITH /* advisor:relations */ rel AS MATERIALIZED (
    SELECT c.oid::bigint AS oid,
           n.nspname || '.' || c.relname AS relname,
           c.relkind::text AS relkind,
           (n.nspname = 'pg_toast') AS is_toast,
           COALESCE(NULLIF(c.reltablespace, 0), d.dattablespace)::bigint AS spcoid,
           c.relisshared AS is_shared,
           pg_relation_filepath(c.oid) AS filepath,
           pg_relation_size(c.oid) AS size_bytes,
           (pg_stat_get_blocks_fetched(c.oid) - pg_stat_get_blocks_hit(c.oid)) AS blks_read,
           pg_stat_get_blocks_hit(c.oid) AS blks_hit
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_database d ON d.datname = current_database()
     WHERE c.relkind IN ('r', 't', 'm', 'i', 'S')
       AND c.relpersistence <> 't'
       AND (NOT c.relisshared OR %(count_shared)s)
)
SELECT
       oid, relname, relkind, is_toast, spcoid, is_shared, filepath, size_bytes, blks_read, blks_hit
  FROM rel
 WHERE size_bytes > 0 OR blks_read > 0
