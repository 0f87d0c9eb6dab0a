-- Sizes for a PostgreSQL workload whose snapshot lacks them (the WAL or temp files when the
-- role may not call pg_ls_waldir/pg_ls_tmpdir, or a workload built elsewhere): each
-- tablespace, the WAL directory, and each tablespace's temp files. Run it as a member of
-- pg_monitor on the server the workload is of and give the output to advisor with --sizes:
--   psql --csv -f sizes.sql > sizes.csv     (or the aligned default: psql -f sizes.sql > sizes.txt)
-- DBID is the cluster's system_identifier; a file of another cluster is refused.
select /* advisor:sizes */ current_database() as db_name,
       (select system_identifier::text from pg_control_system()) as dbid,
       to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as taken_at,
       s.kind, s.tablespace, s.file_name, s.bytes::text as bytes
  from (select 'tablespace' as kind, t.spcname as tablespace,
               coalesce(nullif(pg_tablespace_location(t.oid), ''), current_setting('data_directory')) as file_name,
               pg_tablespace_size(t.oid) as bytes
          from pg_tablespace t
        union all
        select 'wal', 'pg_wal', current_setting('data_directory') || '/pg_wal',
               (select coalesce(sum(w.size), 0) from pg_ls_waldir() w)
        union all
        select 'temp', t.spcname, '', (select coalesce(sum(f.size), 0) from pg_ls_tmpdir(t.oid) f)
          from pg_tablespace t
         where t.spcname <> 'pg_global') s
 order by s.kind, s.tablespace;
