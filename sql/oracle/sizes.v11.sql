-- File sizes for a workload imported from an AWR or Statspack report, which states none:
-- data files, temp files, online redo log members, control files and the fast recovery
-- area's use per file type. Run it by hand on the database the report is of and give the
-- output to advisor: `advisor plan --workload W --sizes sizes.txt` (docs/awr-import.md#sizes).
-- 11.2 (SQL*Plus has no CSV markup): the plain grid is read as printed, headings repeated at
-- page breaks included; keep FEEDBACK on, its "N rows selected." tells a whole file from a
-- cut one, and a LINESIZE wide enough for FILE_NAME:
--   SET FEEDBACK ON LINESIZE 1000 PAGESIZE 50000 TRIMSPOOL ON
--   SPOOL sizes.txt
--   @sizes.sql
--   SPOOL OFF
-- BYTES and DBID are printed with TO_CHAR so no size turns into 3.4360E+10 (NUMWIDTH).
-- Read-only: V$ views only (SELECT_CATALOG_ROLE); no DBA_HIST_* (no Diagnostics Pack needed).
select /* advisor:sizes */ d.name as db_name, to_char(d.dbid) as dbid, to_char(sysdate, 'YYYY-MM-DD"T"HH24:MI:SS') as taken_at,
       cast('datafile' as varchar2(8)) as kind, dt.name as tablespace, df.name as file_name, to_char(df.bytes) as bytes
  from v$database d cross join v$datafile df join v$tablespace dt on dt.ts# = df.ts#
union all
select d.name, to_char(d.dbid), to_char(sysdate, 'YYYY-MM-DD"T"HH24:MI:SS'), 'tempfile', tt.name, tf.name, to_char(tf.bytes)
  from v$database d cross join v$tempfile tf join v$tablespace tt on tt.ts# = tf.ts#
union all
select d.name, to_char(d.dbid), to_char(sysdate, 'YYYY-MM-DD"T"HH24:MI:SS'), 'redo', null, m.member, to_char(l.bytes)
  from v$database d cross join v$logfile m join v$log l on l.group# = m.group#
union all
select d.name, to_char(d.dbid), to_char(sysdate, 'YYYY-MM-DD"T"HH24:MI:SS'), 'control', null, c.name, to_char(c.block_size * c.file_size_blks)
  from v$database d cross join v$controlfile c
union all
select d.name, to_char(d.dbid), to_char(sysdate, 'YYYY-MM-DD"T"HH24:MI:SS'), 'fra', u.file_type, r.name, to_char(round(r.space_limit * u.percent_space_used / 100))
  from v$database d cross join v$recovery_file_dest r cross join v$recovery_area_usage u
 where r.name is not null and u.percent_space_used > 0
 order by kind, tablespace, file_name;
