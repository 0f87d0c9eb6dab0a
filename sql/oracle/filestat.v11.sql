-- Per data file read/write counters (cumulative since startup; times in centiseconds),
-- per instance: RAC rows are summed per file by the collector.
select /* advisor:filestat */ inst_id, file# as file_no, phyrds, phywrts, phyblkrd, phyblkwrt, singleblkrds,
       readtim, writetim, singleblkrdtim
  from gv$filestat;
