-- Parameters recorded by Statspack at the end snap: block size and timing flag.
select /* advisor:statspack_parameter */ name, value
  from perfstat.stats$parameter
 where snap_id = :end_snap and dbid = :dbid and instance_number = :instance_number
   and name in ('db_block_size', 'timed_statistics');
