-- Database identity: DBID is the identity that must not change between two samples.
-- SAMPLED_AT is the server clock in UTC: the time the counters were read.
select /* advisor:database */ dbid, name, db_unique_name, log_mode, open_mode,
       sys_extract_utc(systimestamp) as sampled_at
  from v$database;
