-- Same as v11 through CDB_EXTENTS (12.1+), restricted to the segment's container.
select /* advisor:segment_extents */ e.file_id, e.bytes
  from cdb_extents e
 where e.owner = :owner
   and e.segment_name = :segment_name
   and (e.partition_name = :partition_name or (e.partition_name is null and :partition_name is null))
   and e.con_id = :con_id
