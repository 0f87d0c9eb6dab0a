-- AWR per temp file counters. Needs the Diagnostics Pack licence.
select /* advisor:awr_tempstat */ snap_id, file# as file_no, tsname, filename, phyrds, phywrts, singleblkrds, readtim,
       writetim, singleblkrdtim, phyblkrd, phyblkwrt
  from dba_hist_tempstatxs
 where snap_id in (:begin_snap, :end_snap) and dbid = :dbid and instance_number = :instance_number;
