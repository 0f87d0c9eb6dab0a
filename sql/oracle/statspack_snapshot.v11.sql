-- Statspack snapshots (free history): the two snaps of the interval and the startup
-- time of the instance at each, so an interval spanning a restart is refused.
select /* advisor:statspack_snapshot */ snap_id, dbid, instance_number, snap_time, startup_time
  from perfstat.stats$snapshot
 where snap_id in (:begin_snap, :end_snap) and dbid = :dbid and instance_number = :instance_number;
