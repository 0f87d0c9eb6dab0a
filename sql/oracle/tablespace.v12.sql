-- Same as v11, plus CON_ID: join data files on (TS#, CON_ID).
select /* advisor:tablespace */ ts# as ts_no, name, con_id
  from v$tablespace;
