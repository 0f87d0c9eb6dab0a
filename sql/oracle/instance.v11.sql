-- Instances of the database (GV$ covers every RAC node): name, host, version, thread and
-- startup time. A changed startup_time between two samples means a restart: counters restarted.
select /* advisor:instance */ inst_id, instance_number, instance_name, host_name, version,
       thread# as thread_no, startup_time, status
  from gv$instance;
