-- Per temp file counters, same shape as V$FILESTAT; FILE# is the temp file number
-- (it can collide with a data file number, so files are keyed by type too).
select /* advisor:tempstat */ inst_id, file# as file_no, phyrds, phywrts, phyblkrd, phyblkwrt, singleblkrds,
       readtim, writetim, singleblkrdtim
  from gv$tempstat;
