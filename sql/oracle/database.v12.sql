-- Same as v11, plus CDB (YES/NO), new in 12.1 with multitenant.
-- SAMPLED_AT is the server clock in UTC: the time the counters were read.
select /* advisor:database */ dbid, name, db_unique_name, log_mode, open_mode, cdb,
       sys_extract_utc(systimestamp) as sampled_at
  from v$database;
