-- Tablespace contents (PERMANENT, UNDO, TEMPORARY): V$TABLESPACE has no such column;
-- undo data files are told apart from data files with it.
select /* advisor:tablespace_contents */ tablespace_name, contents
  from dba_tablespaces;
