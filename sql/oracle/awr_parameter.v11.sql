-- AWR parameters at the end snap. Needs the Diagnostics Pack licence.
select /* advisor:awr_parameter */ parameter_name as name, value
  from dba_hist_parameter
 where snap_id = :end_snap and dbid = :dbid and instance_number = :instance_number
   and parameter_name in ('db_block_size', 'timed_statistics');
