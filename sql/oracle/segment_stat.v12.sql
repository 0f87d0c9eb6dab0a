-- Same as v11, plus CON_ID (12.1+ multitenant): the CDB_ dictionary views, joined within each
-- container, name the segments of every PDB when read from the root (they also exist in a
-- non-CDB, where every row has CON_ID 0).
select /* advisor:segment_stat */ s.inst_id, s.ts# as ts_no, s.obj# as obj_no, s.dataobj# as dataobj_no,
       s.statistic_name, s.value, o.owner, o.object_name, o.subobject_name, o.object_type, g.segment_type,
       g.bytes, g.blocks, i.table_owner as index_table_owner, i.table_name as index_table,
       l.table_name as lob_table, l.column_name as lob_column, s.con_id
  from gv$segstat s
  left join cdb_objects o on o.object_id = s.obj# and o.data_object_id = s.dataobj# and o.con_id = s.con_id
  left join cdb_segments g on g.owner = o.owner and g.segment_name = o.object_name
        and nvl(g.partition_name, '-') = nvl(o.subobject_name, '-') and g.con_id = o.con_id
  left join cdb_indexes i on i.owner = o.owner and i.index_name = o.object_name and i.con_id = o.con_id
  left join cdb_lobs l on l.owner = o.owner and l.segment_name = o.object_name and l.con_id = o.con_id
 where s.statistic_name in ('physical reads', 'physical read requests', 'physical reads direct',
                            'physical writes', 'physical write requests', 'physical writes direct',
                            'segment scans')
   and s.value > 0
