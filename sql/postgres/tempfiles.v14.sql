-- Temporary files on disk right now, per tablespace (pg_ls_tmpdir needs pg_monitor; the
-- collector runs this only when EXECUTE is granted). pg_global never holds temp files.
SELECT /* advisor:tempfiles */
       t.spcname, count(f.name) AS files, COALESCE(sum(f.size), 0)::bigint AS size_bytes
  FROM pg_tablespace t
  LEFT JOIN LATERAL pg_ls_tmpdir(t.oid) f ON true
 WHERE t.spcname <> 'pg_global'
 GROUP BY t.spcname
 ORDER BY t.spcname
