-- Per-segment IO at the two Statspack snapshots (level 7+): STATS$SEG_STAT holds cumulative
-- V$SEGSTAT values of the segments above the snapshot thresholds, named in STATS$SEG_STAT_OBJ.
-- Statspack keeps no request counts here: IOPS are counted in blocks (an upper bound).
select /* advisor:statspack_seg_stat */ s.snap_id, s.ts# as ts_no, s.obj# as obj_no, s.dataobj# as dataobj_no,
       s.physical_reads, s.physical_writes, s.direct_physical_reads, s.direct_physical_writes,
       o.owner, o.object_name, o.subobject_name, o.object_type, o.tablespace_name
  from perfstat.stats$seg_stat s
  left join perfstat.stats$seg_stat_obj o on o.dbid = s.dbid and o.ts# = s.ts# and o.obj# = s.obj#
        and o.dataobj# = s.dataobj#
 where s.dbid = :dbid
   and s.instance_number = :instance_number
   and s.snap_id in (:begin_snap, :end_snap)
