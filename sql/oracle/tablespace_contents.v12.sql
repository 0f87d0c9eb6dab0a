-- From 12.1 CDB_TABLESPACES (also present in a non-CDB) gives every container's
-- tablespaces from the root, with CON_ID.
select /* advisor:tablespace_contents */ tablespace_name, contents, con_id
  from cdb_tablespaces;
