-- Per-segment IO counters since instance startup: one row per instance, segment and statistic
-- with a non-zero value. GV$SEGSTAT needs no management pack (only SELECT_CATALOG_ROLE) and is
-- much cheaper than V$SEGMENT_STATISTICS; the dictionary names each segment: DBA_OBJECTS the
-- owner, name, partition and object type, DBA_SEGMENTS the segment type and size, DBA_INDEXES and
-- DBA_LOBS the table an index or LOB belongs to. Outer joins: a segment of an object dropped
-- since keeps its counters with empty names. TS# gives the tablespace (V$TABLESPACE, read already).
select /* advisor:segment_stat */ s.inst_id, s.ts# as ts_no, s.obj# as obj_no, s.dataobj# as dataobj_no,
       s.statistic_name, s.value, o.owner, o.object_name, o.subobject_name, o.object_type, g.segment_type,
       g.bytes, g.blocks, i.table_owner as index_table_owner, i.table_name as index_table,
       l.table_name as lob_table, l.column_name as lob_column
  from gv$segstat s
  left join dba_objects o on o.object_id = s.obj# and o.data_object_id = s.dataobj#
  left join dba_segments g on g.owner = o.owner and g.segment_name = o.object_name
        and nvl(g.partition_name, '-') = nvl(o.subobject_name, '-')
  left join dba_indexes i on i.owner = o.owner and i.index_name = o.object_name
  left join dba_lobs l on l.owner = o.owner and l.segment_name = o.object_name
 where s.statistic_name in ('physical reads', 'physical read requests', 'physical reads direct',
                            'physical writes', 'physical write requests', 'physical writes direct',
                            'segment scans')
   and s.value > 0
