-- Every tablespace with its directory ('' for pg_default and pg_global, which live in
-- data_directory/base and data_directory/global) and size. pg_tablespace_size of another
-- tablespace needs CREATE on it or pg_read_all_stats, so it is asked only when allowed.
SELECT /* advisor:tablespaces */
       t.oid::bigint AS spcoid,
       t.spcname,
       pg_tablespace_location(t.oid) AS location,
       CASE WHEN pg_has_role(current_user, 'pg_read_all_stats', 'USAGE')
                 OR has_tablespace_privilege(t.oid, 'CREATE')
                 OR t.spcname = 'pg_default'
            THEN pg_tablespace_size(t.oid) END AS size_bytes
  FROM pg_tablespace t
 ORDER BY t.oid
