-- AWR per data file counters. Needs the Diagnostics Pack licence: run only with
-- --diagnostics-pack.
select /* advisor:awr_filestat */ snap_id, file# as file_no, tsname, filename, phyrds, phywrts, singleblkrds, readtim,
       writetim, singleblkrdtim, phyblkrd, phyblkwrt
  from dba_hist_filestatxs
 where snap_id in (:begin_snap, :end_snap) and dbid = :dbid and instance_number = :instance_number;
