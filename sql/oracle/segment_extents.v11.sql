-- The files holding one segment's extents, asked only for the top segments: DBA_EXTENTS is slow
-- on large databases, so each segment is one statement under the session's call timeout.
select /* advisor:segment_extents */ e.file_id, e.bytes
  from dba_extents e
 where e.owner = :owner
   and e.segment_name = :segment_name
   and (e.partition_name = :partition_name or (e.partition_name is null and :partition_name is null))
