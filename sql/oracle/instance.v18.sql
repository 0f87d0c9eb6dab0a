-- Same as v11, plus VERSION_FULL (18c+): V$INSTANCE.VERSION says 19.0.0.0.0 whatever
-- the release update, VERSION_FULL carries the RU level (19.21.0.0.0).
select /* advisor:instance */ inst_id, instance_number, instance_name, host_name, version, version_full,
       thread# as thread_no, startup_time, status
  from gv$instance;
