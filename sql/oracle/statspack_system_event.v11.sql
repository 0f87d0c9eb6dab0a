-- Statspack wait events at each snap (microseconds), for redo writes and IO share.
select /* advisor:statspack_system_event */ snap_id, event, total_waits, time_waited_micro
  from perfstat.stats$system_event
 where snap_id in (:begin_snap, :end_snap) and dbid = :dbid and instance_number = :instance_number;
