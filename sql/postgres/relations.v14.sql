-- Buffer misses of every relation with storage in the current database, attributed to the
-- relation's own tablespace (reltablespace 0 = the database's default). Tables, indexes,
-- TOAST tables and TOAST indexes are separate rows (summing pg_statio_all_tables would double
-- count TOAST). Shared catalogs (pg_global) are the same in every database: only the one run
-- with count_shared = true returns them. blks_read is a shared_buffers miss, possibly served
-- by the OS cache.
-- Cheap on purpose, because it runs once per database over every relation (10,000 rows in
-- about 10 ms): no function opens or locks a relation (pg_relation_size would take a lock on
-- every relation, exhaust max_locks_per_transaction on large catalogs and wait behind DDL),
-- and the file path is built by the collector from relfilenode, tablespace and database oid
-- (pg_relation_filepath costs two thirds of the query); only mapped catalogs, whose
-- relfilenode is 0, ask pg_relation_filenode. The size is relpages (as of the last
-- VACUUM/ANALYZE); the collector replaces it with the real file sizes when the data directory
-- is visible on its host.
-- parent_oid is the table an index or TOAST relation belongs to (a TOAST index's table is the
-- owner of its TOAST table), NULL for tables: the plan can move a hot table with its indexes
-- and TOAST alone. Both joins are hash joins over pg_index and pg_class, no relation is opened.
-- scans is the number of sequential scans of a table (idx_scan for an index): the rates stage
-- gives pg_stat_io's bulkread reads to the tables scanned in the interval.
-- Parameter count_shared: true in the collector's own database, false in the others.
SELECT /* advisor:relations */
       c.oid::bigint AS oid,
       n.nspname || '.' || c.relname AS relname,
       c.relkind::text AS relkind,
       (n.nspname = 'pg_toast') AS is_toast,
       COALESCE(NULLIF(c.reltablespace, 0), d.dattablespace)::bigint AS spcoid,
       c.relisshared AS is_shared,
       (CASE WHEN c.relfilenode <> 0 THEN c.relfilenode ELSE pg_relation_filenode(c.oid) END)::bigint AS filenode,
       c.relpages::bigint AS relpages,
       (pg_stat_get_blocks_fetched(c.oid) - pg_stat_get_blocks_hit(c.oid)) AS blks_read,
       pg_stat_get_blocks_hit(c.oid) AS blks_hit,
       COALESCE(owner.oid, i.indrelid)::bigint AS parent_oid,
       pg_stat_get_numscans(c.oid) AS scans
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_database d ON d.datname = current_database()
  LEFT JOIN pg_index i ON i.indexrelid = c.oid
  LEFT JOIN pg_class owner ON owner.reltoastrelid = COALESCE(i.indrelid, c.oid) AND owner.reltoastrelid <> 0
 WHERE c.relkind IN ('r', 't', 'm', 'i', 'S')
   AND c.relpersistence <> 't'
   AND (NOT c.relisshared OR %(count_shared)s)
