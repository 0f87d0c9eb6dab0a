-- AWR wait events at each snap (microseconds). Needs the Diagnostics Pack licence.
select /* advisor:awr_system_event */ snap_id, event_name as event, total_waits, time_waited_micro
  from dba_hist_system_event
 where snap_id in (:begin_snap, :end_snap) and dbid = :dbid and instance_number = :instance_number;
