-- Per-segment IO of each AWR snapshot in (begin, end], named in DBA_HIST_SEG_STAT_OBJ. AWR keeps
-- only the top segments of each snapshot, so the *_DELTA columns are summed (as awrrpt does)
-- rather than subtracting totals of segments that may be absent at the begin snapshot. Run only
-- within --awr, which needs --diagnostics-pack (see docs/oracle.md on which DBA_HIST views the
-- licensing summary exempts).
select /* advisor:awr_seg_stat */ s.snap_id, s.ts# as ts_no, s.obj# as obj_no, s.dataobj# as dataobj_no,
       s.physical_reads_delta, s.physical_read_requests_delta, s.physical_reads_direct_delta,
       s.physical_writes_delta, s.physical_write_requests_delta, s.physical_writes_direct_delta,
       s.table_scans_delta, o.owner, o.object_name, o.subobject_name, o.object_type, o.tablespace_name
  from dba_hist_seg_stat s
  left join dba_hist_seg_stat_obj o on o.dbid = s.dbid and o.ts# = s.ts# and o.obj# = s.obj#
        and o.dataobj# = s.dataobj#
 where s.dbid = :dbid
   and s.instance_number = :instance_number
   and s.snap_id > :begin_snap
   and s.snap_id <= :end_snap
