-- Statspack per temp file counters (copies of V$TEMPSTAT at each snap).
select /* advisor:statspack_tempstat */ snap_id, file# as file_no, tsname, filename, phyrds, phywrts, singleblkrds, readtim,
       writetim, singleblkrdtim, phyblkrd, phyblkwrt
  from perfstat.stats$tempstatxs
 where snap_id in (:begin_snap, :end_snap) and dbid = :dbid and instance_number = :instance_number;
