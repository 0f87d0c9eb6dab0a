-- Every tablespace with its directory ('' for pg_default and pg_global, which live in
-- data_directory/base and data_directory/global; 'pg_tblspc/<oid>' for in-place ones).
-- No pg_tablespace_size here: it stats every file of the tablespace on the server, which
-- cost a third of a second on a 100,000-relation cluster while the collector already has the
-- size of every relation file; the snapshot's pg_tablespace view carries their sum instead.
SELECT /* advisor:tablespaces */
       t.oid::bigint AS spcoid,
       t.spcname,
       pg_tablespace_location(t.oid) AS location
  FROM pg_tablespace t
 ORDER BY t.oid
