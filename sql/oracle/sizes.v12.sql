-- Same as v11 plus CONTAINER (the PDB of each data and temp file; CDB$ROOT for the root), so a
-- tablespace named alike in several PDBs (USERS, SYSTEM) is told apart. On 12.2 and later
-- SQL*Plus writes CSV; on 12.1 use the grid settings of v11:
--   SET MARKUP CSV ON
--   SET FEEDBACK ON
--   SPOOL sizes.csv
--   @sizes.sql
--   SPOOL OFF
-- Give the output to advisor: `advisor plan --workload W --sizes sizes.csv` (docs/awr-import.md#sizes).
-- Run it in CDB$ROOT so every PDB's files are listed.
select /* advisor:sizes */ d.name as db_name, to_char(d.dbid) as dbid, to_char(sysdate, 'YYYY-MM-DD"T"HH24:MI:SS') as taken_at,
       cast('datafile' as varchar2(8)) as kind, dc.name as container, dt.name as tablespace, df.name as file_name,
       to_char(df.bytes) as bytes
  from v$database d cross join v$datafile df join v$tablespace dt on dt.ts# = df.ts# and dt.con_id = df.con_id
       left join v$containers dc on dc.con_id = df.con_id
union all
select d.name, to_char(d.dbid), to_char(sysdate, 'YYYY-MM-DD"T"HH24:MI:SS'), 'tempfile', tc.name, tt.name, tf.name, to_char(tf.bytes)
  from v$database d cross join v$tempfile tf join v$tablespace tt on tt.ts# = tf.ts# and tt.con_id = tf.con_id
       left join v$containers tc on tc.con_id = tf.con_id
union all
select d.name, to_char(d.dbid), to_char(sysdate, 'YYYY-MM-DD"T"HH24:MI:SS'), 'redo', null, null, m.member, to_char(l.bytes)
  from v$database d cross join v$logfile m join v$log l on l.group# = m.group#
union all
select d.name, to_char(d.dbid), to_char(sysdate, 'YYYY-MM-DD"T"HH24:MI:SS'), 'control', null, null, c.name, to_char(c.block_size * c.file_size_blks)
  from v$database d cross join v$controlfile c
union all
select d.name, to_char(d.dbid), to_char(sysdate, 'YYYY-MM-DD"T"HH24:MI:SS'), 'fra', null, u.file_type, r.name, to_char(round(r.space_limit * u.percent_space_used / 100))
  from v$database d cross join v$recovery_file_dest r cross join v$recovery_area_usage u
 where r.name is not null and u.percent_space_used > 0
 order by kind, container, tablespace, file_name;
