-- Databases, their default tablespace and their cumulative counters: temp files/bytes (temp
-- IO is in no other view), buffer misses and, with track_io_timing, read/write time.
-- stats_reset is NULL until pg_stat_reset() runs in that database. active_time (ms spent in
-- state active or fastpath by client sessions, 14+) is the DB time the IO share divides by.
-- temp_tablespaces is the database's own setting (ALTER DATABASE ... SET temp_tablespaces, for
-- every role: pg_db_role_setting with setrole 0), NULL when it has none.
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
       s.sessions,
       (SELECT substr(c, strpos(c, '=') + 1)
          FROM pg_db_role_setting r, unnest(r.setconfig) AS c
         WHERE r.setdatabase = d.oid AND r.setrole = 0 AND split_part(c, '=', 1) = 'temp_tablespaces'
         LIMIT 1) AS temp_tablespaces
  FROM pg_database d
  LEFT JOIN pg_stat_database s ON s.datid = d.oid
 ORDER BY d.datname
