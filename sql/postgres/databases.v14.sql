-- Databases, their default tablespace and their cumulative counters: temp files/bytes (temp
-- IO is in no other view), buffer misses and, with track_io_timing, read/write time.
-- stats_reset is NULL until pg_stat_reset() runs in that database. active_time (ms spent in
-- state active or fastpath by client sessions, 14+) is the DB time the IO share divides by.
SELECT /* advisor:databases */
       d.oid::bigint AS datid,
       d.datname,
       d.dattablespace::bigint AS dattablespace,
       d.datallowconn AS allow_connections,
       d.datistemplate AS is_template,
       has_database_privilege(d.oid, 'CONNECT') AS can_connect,
       s.stats_reset,
       s.temp_files,
       s.temp_bytes,
       s.blks_read,
       s.blk_read_time,
       s.blk_write_time,
       s.active_time,
       s.sessions
  FROM pg_database d
  LEFT JOIN pg_stat_database s ON s.datid = d.oid
 ORDER BY d.datname
