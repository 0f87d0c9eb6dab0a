-- Tablespace names by TS# (TS# is unique only within a container).
select /* advisor:tablespace */ ts# as ts_no, name
  from v$tablespace;
