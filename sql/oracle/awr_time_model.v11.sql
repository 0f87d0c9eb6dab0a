-- AWR DB time at each snap (microseconds). Needs the Diagnostics Pack licence.
select /* advisor:awr_time_model */ snap_id, stat_name, value
  from dba_hist_sys_time_model
 where snap_id in (:begin_snap, :end_snap) and dbid = :dbid and instance_number = :instance_number
   and stat_name = 'DB time';
