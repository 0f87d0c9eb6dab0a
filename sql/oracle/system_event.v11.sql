-- IO and commit wait events per instance; TIME_WAITED_MICRO is in microseconds.
select /* advisor:system_event */ inst_id, event, wait_class, total_waits, time_waited_micro
  from gv$system_event
 where wait_class in ('User I/O', 'System I/O', 'Commit');
