-- WAL segments on disk (pg_ls_waldir needs pg_monitor): their number and total size.
SELECT /* advisor:waldir */
       count(*) AS segments, COALESCE(sum(size), 0)::bigint AS size_bytes
  FROM pg_ls_waldir()
 WHERE name ~ '^[0-9A-F]{24}$'
