-- Statspack DB time at each snap (microseconds).
select /* advisor:statspack_time_model */ t.snap_id, n.stat_name, t.value
  from perfstat.stats$sys_time_model t
  join perfstat.stats$time_model_statname n on n.stat_id = t.stat_id
 where t.snap_id in (:begin_snap, :end_snap) and t.dbid = :dbid and t.instance_number = :instance_number
   and n.stat_name = 'DB time';
