-- AWR snapshots (DBA_HIST_SNAPSHOT is exempt from the pack, the rest of AWR is not).
select /* advisor:awr_snapshot */ snap_id, dbid, instance_number, end_interval_time as snap_time, startup_time
  from dba_hist_snapshot
 where snap_id in (:begin_snap, :end_snap) and dbid = :dbid and instance_number = :instance_number;
