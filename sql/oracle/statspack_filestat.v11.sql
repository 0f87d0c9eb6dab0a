-- Statspack per data file counters (cumulative copies of V$FILESTAT at each snap).
select /* advisor:statspack_filestat */ snap_id, file# as file_no, tsname, filename, phyrds, phywrts, singleblkrds, readtim,
       writetim, singleblkrdtim, phyblkrd, phyblkwrt
  from perfstat.stats$filestatxs
 where snap_id in (:begin_snap, :end_snap) and dbid = :dbid and instance_number = :instance_number;
