-- Same as v11, plus CON_ID (12.1+): in a CDB each segment is named within its container
-- (the object rows are joined on CON_DBID as well).
select /* advisor:awr_seg_stat */ s.snap_id, s.ts# as ts_no, s.obj# as obj_no, s.dataobj# as dataobj_no,
       s.physical_reads_delta, s.physical_read_requests_delta, s.physical_reads_direct_delta,
       s.physical_writes_delta, s.physical_write_requests_delta, s.physical_writes_direct_delta,
       s.table_scans_delta, o.owner, o.object_name, o.subobject_name, o.object_type, o.tablespace_name,
       s.con_id
  from dba_hist_seg_stat s
  left join dba_hist_seg_stat_obj o on o.dbid = s.dbid and o.ts# = s.ts# and o.obj# = s.obj#
        and o.dataobj# = s.dataobj# and o.con_dbid = s.con_dbid
 where s.dbid = :dbid
   and s.instance_number = :instance_number
   and s.snap_id > :begin_snap
   and s.snap_id <= :end_snap
